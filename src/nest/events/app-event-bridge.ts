import { Logger, type Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { EVENT_EMITTER_MISSING } from '../mcp-messages.js';

/** What of `@nestjs/event-emitter`'s `EventEmitter2` the bridge uses. */
interface AppEmitter {
  on(event: string, listener: (payload: unknown) => void): unknown;
  off(event: string, listener: (payload: unknown) => void): unknown;
}

/**
 * Feeds `@McpEvent` methods from the app's own events: each method listens on the emitter
 * `EventEmitterModule.forRoot()` provides, and what it returns is published as an occurrence. The emitter is
 * looked up in the app, never created: `@nestjs/event-emitter` is an optional peer, loaded only when an
 * `@McpEvent` exists.
 */
export class AppEventBridge {
  private emitter: AppEmitter | undefined;
  private readonly listening: Array<[string, (payload: unknown) => void]> = [];
  private readonly logger = new Logger('McpEvent');

  constructor(private readonly moduleRef: ModuleRef) {}

  /**
   * Calls `method` with each app event named `on` and publishes what it returns (nothing for `undefined`). A
   * method that answers at once is published before `emit` returns, so a poll right after sees it. A failure
   * (the method throws, or its data does not fit the payloadSchema) is logged: the app's emit never fails for it.
   */
  async listen(
    place: string,
    on: string,
    method: (payload: unknown) => unknown,
    publish: (data: unknown) => Promise<void>,
  ): Promise<void> {
    const emitter = (this.emitter ??= await this.resolve(place, on));
    const failed = (error: unknown) => this.logger.error(`${place} failed for app event "${on}"`, error);
    const publishData = (data: unknown) => {
      if (data !== undefined) publish(data).catch(failed);
    };
    const listener = (payload: unknown) => {
      let result: unknown;
      try {
        result = method(payload);
      } catch (error) {
        return failed(error);
      }
      if (result instanceof Promise) result.then(publishData, failed);
      else publishData(result);
    };
    emitter.on(on, listener);
    this.listening.push([on, listener]);
  }

  /** Stops listening (the app is shutting down). */
  close(): void {
    for (const [on, listener] of this.listening.splice(0)) this.emitter?.off(on, listener);
  }

  private async resolve(place: string, on: string): Promise<AppEmitter> {
    try {
      const { EventEmitter2 } = (await import('@nestjs/event-emitter')) as { EventEmitter2: Type<AppEmitter> };
      return this.moduleRef.get(EventEmitter2, { strict: false });
    } catch (error) {
      throw new McpConfigurationError(EVENT_EMITTER_MISSING(place, on), { cause: error });
    }
  }
}
