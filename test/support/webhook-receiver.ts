import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const TLS_DIR = join(process.cwd(), 'test/support/tls');
/** The loopback test certificate (CN and SAN localhost, 127.0.0.1): what a receiver's `ca` option trusts. */
export const RECEIVER_CERT = readFileSync(join(TLS_DIR, 'localhost.test-only.crt'), 'utf8');
const RECEIVER_KEY = readFileSync(join(TLS_DIR, 'localhost.test-only.key'), 'utf8');

/** One POST as the receiver saw it: the raw bytes, as a verifier must read them. */
export interface Received {
  path: string;
  method: string;
  headers: Record<string, string>;
  raw: string;
  json: Record<string, any>;
}

/** How a path answers: a status and body, or a promise of them (held until the test lets go). */
export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}
export type Behaviour = (received: Received, attempt: number) => Answer | Promise<Answer>;

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function freshSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** True when one of the `v1,` signatures in the header is the HMAC of `id.timestamp.raw` under `secret`. */
export function signedWith(received: Received, secret: string): boolean {
  const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': header } = received.headers;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${received.raw}`).digest('base64')}`;
  return (header ?? '').split(' ').includes(expected);
}

/** Answers a verification envelope by echoing its challenge, anything else with 200. */
export const ECHO: Behaviour = ({ json }) =>
  json.type === 'verification' ? { status: 200, body: JSON.stringify({ challenge: json.challenge }) } : { status: 200 };

/**
 * An HTTPS webhook endpoint on loopback with the test certificate: records every POST per path, and answers
 * as each path's behaviour says (echoing challenges by default).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly waiters: Array<() => void> = [];
  private readonly attempts = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(host = '127.0.0.1'): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer({ key: RECEIVER_KEY, cert: RECEIVER_CERT }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, any> = {};
        try {
          json = JSON.parse(raw) as Record<string, any>;
        } catch {
          // Not JSON: recorded as it came.
        }
        const path = req.url ?? '/';
        const received = { path, method: req.method ?? '', headers: req.headers as Record<string, string>, raw, json };
        void receiver!.answer(received).then(({ status, body, headers }) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body ?? '{}');
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `https://${host === '127.0.0.1' ? '127.0.0.1' : host}:${port}`);
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A path of its own for one test, answering with `behaviour`. */
  path(name: string, behaviour: Behaviour = ECHO): string {
    const path = `/${name}-${randomBytes(4).toString('hex')}`;
    this.behaviours.set(path, behaviour);
    return path;
  }

  url(path: string, origin = this.origin): string {
    return `${origin}${path}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Events (not control envelopes) that reached `path`. */
  events(path: string): Received[] {
    return this.on(path).filter((r) => r.json.type === undefined);
  }

  /** Resolves once `count` POSTs to `path` match. */
  async until(path: string, count: number, match: (r: Received) => boolean = () => true): Promise<Received[]> {
    for (;;) {
      const found = this.on(path).filter(match);
      if (found.length >= count) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async answer(received: Received): Promise<Answer> {
    this.received.push(received);
    const attempt = (this.attempts.get(received.headers['webhook-id']) ?? 0) + 1;
    this.attempts.set(received.headers['webhook-id'], attempt);
    this.waiters.splice(0).forEach((wake) => wake());
    return (this.behaviours.get(received.path) ?? ECHO)(received, attempt);
  }
}
