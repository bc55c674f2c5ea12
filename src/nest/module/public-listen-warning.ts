import type { LoggerService } from '@nestjs/common';
import { publicBindWarning } from '../../http/policy/bind-address.js';
import type { HostOriginOptions } from '../../http/policy/host-origin-policy.js';

interface ListeningAdapter {
  listen: (port: string | number, ...args: never[]) => unknown;
}

/**
 * `app.listen` on a public address with only the loopback Host names allowed logs one warning that says what to
 * set; the app still starts (its other routes are not ours to stop). Nest has no hook between `app.listen` and
 * the bind, and the server's own `listening` event also fires for every supertest or test-kit listener (which
 * would warn in every test), so this wraps the adapter's `listen`, the one call `app.listen` makes with the
 * host it was given. test/unit/adapter-assumptions.spec.ts pins that call.
 */
export function warnOnPublicListen(adapter: ListeningAdapter, options: HostOriginOptions, logger: LoggerService): void {
  const listen = adapter.listen.bind(adapter) as (port: string | number, ...args: unknown[]) => unknown;
  adapter.listen = (port: string | number, ...args: unknown[]) => {
    const isPipe = typeof port === 'string' && !/^\d+$/.test(port);
    const warning = isPipe ? null : publicBindWarning(typeof args[0] === 'string' ? args[0] : undefined, options);
    if (warning) logger.warn(warning);
    return listen(port, ...args);
  };
}
