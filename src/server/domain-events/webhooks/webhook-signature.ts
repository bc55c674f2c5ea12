import { createHmac } from 'node:crypto';
import { McpError } from '../../../protocol/mcp-error.js';

const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/**
 * The bytes of a Standard Webhooks secret (`whsec_` and the base64 of 24 to 64 bytes), which the client makes and
 * the server never does; anything else is -32602.
 */
export function secretBytes(value: unknown): Buffer {
  const match = typeof value === 'string' ? SECRET.exec(value) : null;
  const encoded = match?.[1].replace(/=+$/, '');
  const bytes = encoded === undefined ? undefined : Buffer.from(encoded, 'base64');
  // Node decodes what it can of malformed base64: the bytes must encode back to exactly what was given.
  if (!bytes || bytes.length < 24 || bytes.length > 64 || bytes.toString('base64').replace(/=+$/, '') !== encoded)
    throw McpError.invalidParams(
      'Invalid params: "delivery.secret" must be a Standard Webhooks secret: "whsec_" and the base64 of 24 to 64 random bytes',
    );
  return bytes;
}

/**
 * The `webhook-signature` header: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under each secret,
 * space-separated (two while a rotated-out secret is still honoured, so a delivery in flight verifies under either).
 */
export function signature(secrets: readonly Buffer[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}
