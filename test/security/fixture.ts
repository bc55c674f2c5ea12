import type { INestApplication } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { MCPServer, McpModule, ToolError, type McpModuleOptions } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import {
  createMcpTestClient,
  mcpHeaders,
  mcpMessage,
  sseMessages,
  type McpTestClient,
} from '../../src/testing/index.js';

/** The test server's fixture tools (security.md §5.2), with a canary counter bumped first thing in each handler. */
export interface Fixture {
  app: INestApplication;
  server: MCPServer;
  /** The testing kit's client for this app, for conforming and deliberately broken requests alike. */
  mcp: McpTestClient;
  /** Handler invocations so far: a refused request must leave it unchanged. */
  calls(): number;
  /** `hang` calls whose AbortSignal fired. */
  aborted(): number;
  /** Whether a `hang` call with this `tag` argument has reached its handler. */
  started(tag: string): boolean;
  /** Port when started with `listen: true`. */
  port: number;
}

export const FAKE_SECRET = 'secret=hunter2';

export async function startFixture(options: Partial<McpModuleOptions> = {}, listen = false): Promise<Fixture> {
  const app = await createApp([McpModule.forRoot({ name: 'security-fixture', version: '1.0.0', ...options })]);
  const server = app.get(MCPServer);
  let calls = 0;
  let aborted = 0;
  const started = new Set<string>();
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;
  server.registerTool('echo', 'Echoes text', text, (args: { text: string }) => {
    calls++;
    return args.text;
  });
  server.registerTool('boom', 'Throws an error with a secret and a path in it', { type: 'object' }, () => {
    calls++;
    throw new Error(`database exploded (${FAKE_SECRET}) at /srv/app/node_modules/db/index.js:42`);
  });
  server.registerTool('refuse', 'Throws an error meant for the client', { type: 'object' }, () => {
    calls++;
    throw new ToolError('City not found');
  });
  server.registerTool(
    'hang',
    'Never resolves; records whether its signal fired',
    { type: 'object' },
    (args: { tag?: unknown }, _inputs, ctx) => {
      calls++;
      if (typeof args.tag === 'string') started.add(args.tag);
      ctx.signal.addEventListener('abort', () => aborted++, { once: true });
      return new Promise(() => undefined);
    },
  );
  server.registerTool(
    'big',
    'Returns `mb` megabytes of text',
    { type: 'object', properties: { mb: { type: 'number', minimum: 0, maximum: 64 } } },
    (args: { mb?: number }) => {
      calls++;
      return 'x'.repeat(Math.round((args.mb ?? 1) * 1024 * 1024));
    },
  );
  server.registerTool(
    'slowProgress',
    'Emits progress every 20 ms, n times',
    { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 500 } }, required: ['n'] },
    async (args: { n: number }, _inputs, ctx) => {
      calls++;
      for (let i = 1; i <= args.n && !ctx.signal.aborted; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        ctx.reportProgress({ progress: i, total: args.n, message: `${ctx.requestId}:${i}` });
      }
      return `done ${ctx.requestId}`;
    },
  );
  server.registerTool(
    'regex',
    'A catastrophic pattern',
    { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } }, required: ['q'] },
    () => {
      calls++;
      return 'matched';
    },
  );
  let port = 0;
  if (listen) {
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as { port: number }).port;
  }
  const mcp = createMcpTestClient(app);
  return { app, server, mcp, calls: () => calls, aborted: () => aborted, started: (tag) => started.has(tag), port };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are on a fresh socket and reads until the server closes or `waitMs` passes. */
export function rawExchange(
  port: number,
  bytes: string | Buffer,
  waitMs = 2_000,
): Promise<RawResponse & { raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (responseComplete(Buffer.concat(chunks).toString('latin1'))) socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      resolve({ ...parseRaw(raw), raw });
    });
    socket.write(bytes);
  });
}

function responseComplete(raw: string): boolean {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, end));
  return length !== null && Buffer.byteLength(raw.slice(end + 4), 'latin1') >= Number(length[1]);
}

function parseRaw(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: end < 0 ? '' : raw.slice(end + 4) };
}

/** A request line and headers for a raw POST to /mcp. */
export function rawPost(port: number, headers: string[], body: string | Buffer): Buffer {
  const head = [`POST /mcp HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...headers, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/** A POST through node:http with full control of headers and a body written in chunks (no Content-Length). */
export function chunkedPost(port: number, headers: Record<string, string>, chunks: Buffer[]): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { ...headers, 'transfer-encoding': 'chunked' },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(parts).toString('utf8'),
          }),
        );
      },
    );
    // The server may answer 413 and close before all chunks are written; that is the behaviour under test.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** No error body may carry a stack trace or an absolute path (H18). */
export function assertNoLeak(text: string): void {
  expect(text).not.toMatch(/\n\s+at\s/);
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/(?<![\w:/.])\/(?:srv|home|root|usr|tmp|work)\//);
}

export interface Expected {
  status: number;
  /** JSON-RPC error code of the body; omit for bodyless answers (202, Node parser errors). */
  code?: number;
  /** Expected `id` of the error body (null when the request's id could not be read). */
  id?: string | number | null;
}

/** Checks one refusal: status, code, id, no leak, no dispatch, and that the next valid request still works. */
export async function expectRefused(
  fx: Fixture,
  send: () => PromiseLike<{ status: number; text?: string; body?: unknown }>,
  expected: Expected,
): Promise<void> {
  const before = fx.calls();
  const res = await send();
  const text = res.text ?? (typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? ''));
  expect(res.status).toBe(expected.status);
  if (expected.code !== undefined) {
    const body = JSON.parse(text) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.code).toBe(expected.code);
    expect(typeof body.error.message).toBe('string');
    if (expected.id !== undefined) expect(body.id).toBe(expected.id);
  }
  assertNoLeak(text);
  expect(fx.calls()).toBe(before);
  await expectStillServing(fx);
}

export async function expectStillServing(fx: Fixture): Promise<void> {
  const ok = await fx.mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'still serving' } }));
  expect(ok.status).toBe(200);
  expect(ok.body.result.content[0].text).toBe('still serving');
}

/** Polls until `condition` holds; fails after `ms` (a bound on waiting, not a performance assertion). */
export async function waitFor(condition: () => boolean, ms = 5_000, what = 'condition'): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface OpenStream {
  status: Promise<number>;
  /** Everything received so far. */
  text(): string;
  /** Parsed `data:` messages received so far. */
  messages(): Array<Record<string, unknown>>;
  ended: Promise<void>;
  close(): void;
}

/** POSTs a conforming body over node:http and exposes the response as it streams in. */
export function openStream(port: number, body: Record<string, unknown>): OpenStream {
  let received = '';
  let resolveStatus!: (status: number) => void;
  let resolveEnded!: () => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const text = JSON.stringify(body);
  const req = httpRequest(
    {
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: { ...mcpHeaders(body), 'content-length': Buffer.byteLength(text) },
    },
    (res) => {
      resolveStatus(res.statusCode ?? 0);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (received += chunk));
      res.on('end', resolveEnded);
      res.on('close', resolveEnded);
    },
  );
  req.on('error', () => resolveEnded());
  req.end(text);
  return {
    status,
    text: () => received,
    messages: () => sseMessages(received),
    ended,
    close: () => req.destroy(),
  };
}

/** Runs `work` and fails if any promise was rejected without a handler meanwhile (V6: a crash in waiting). */
export async function withoutUnhandledRejections(work: () => Promise<void>): Promise<void> {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  try {
    await work();
  } finally {
    process.off('unhandledRejection', onRejection);
  }
  expect(rejections).toEqual([]);
}
