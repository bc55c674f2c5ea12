import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookFailure } from '../../../protocol/extensions/events.js';
import type { CallbackTarget } from './callback-address.js';

/** What one POST came to: the status and the start of the body, or why there was none. */
export type PostOutcome =
  | { readonly status: number; readonly body: string }
  | { readonly failure: Extract<WebhookFailure, 'connection_refused' | 'timeout' | 'tls_error'> };

/** How much of a response is read: enough for a verification echo, never what an endpoint chooses to send. */
const MAX_RESPONSE_BYTES = 4_096;

export interface PostOptions {
  readonly timeoutMs: number;
  readonly ca?: string | Buffer | Array<string | Buffer>;
}

/**
 * One signed POST to a callback, over TLS, to the address that was checked (the connection never looks the
 * name up again; the name still goes in `Host` and SNI, and the certificate is checked against it). Redirects
 * are not followed: a 3xx is an answer like any other. The whole exchange is bounded by `timeoutMs`.
 */
export function postWebhook(
  target: CallbackTarget,
  headers: Record<string, string>,
  body: string,
  { timeoutMs, ca }: PostOptions,
): Promise<PostOutcome> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const req = request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        ca,
        agent: false,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
          else settle({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('end', () => settle({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => settle({ failure: 'connection_refused' }));
      },
    );
    const timer = setTimeout(() => settle({ failure: 'timeout' }), timeoutMs);
    timer.unref();
    req.on('error', (error: NodeJS.ErrnoException) => settle({ failure: failureOf(error) }));
    req.end(body);
  });
}

function failureOf(error: NodeJS.ErrnoException): 'connection_refused' | 'tls_error' {
  const code = error.code ?? '';
  return /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME|DEPTH_ZERO/i.test(code)
    ? 'tls_error'
    : 'connection_refused';
}
