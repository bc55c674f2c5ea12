import type { ServerResponse } from 'node:http';

/** A Node response, or a framework's reply that wraps one (Fastify's `raw`). */
export type PublicReply = ServerResponse & { raw?: ServerResponse };

/**
 * Writes a public discovery document (Server Card, catalog, RFC 9728 metadata): hosts and browser-based clients
 * fetch these cross-origin before they hold any token, so CORS is `*`, and they change only with the
 * configuration, so they are cached an hour.
 */
export function sendPublicDocument(res: PublicReply, type: string, body: string): void {
  const raw = res.raw ?? res;
  raw.writeHead(200, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'public, max-age=3600',
    'access-control-allow-origin': '*',
  });
  raw.end(body);
}
