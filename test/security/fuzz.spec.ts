import 'reflect-metadata';
import { jest } from '@jest/globals';
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { expectStillServing, startFixture, withoutUnhandledRejections, type Fixture } from './fixture.js';

// Volume and timing tests: generous bounds for a loaded 2-core CI machine (they assert correctness, not speed).
jest.setTimeout(60_000);

// Property tests of the two entry points: whatever arrives, no 5xx, no crash, no unhandled rejection, and the
// answer is exactly one well-formed JSON-RPC response (or an empty 202).
const TOOLS = ['echo', 'boom', 'refuse', 'regex', 'big', 'nope', '__proto__', 'constructor', 'toString'];
const METHODS = [
  'tools/call',
  'tools/list',
  'resources/read',
  'prompts/get',
  'server/discover',
  'completion/complete',
  'ping',
  'initialize',
  'constructor',
  '__proto__',
  'x',
];

/** A valid request with one part replaced by an arbitrary JSON value, so fuzzing reaches past the first rungs. */
const mutatedEnvelope = fc
  .record({
    method: fc.constantFrom(...METHODS),
    name: fc.constantFrom(...TOOLS),
    path: fc.constantFrom(
      'id',
      'jsonrpc',
      'method',
      'params',
      'params.name',
      'params.arguments',
      'params._meta',
      'params.arguments.text',
      'params.requestState',
      'params.inputResponses',
      'params.cursor',
      'params.uri',
      'none',
    ),
    value: fc.jsonValue({ maxDepth: 3 }),
  })
  .map(({ method, name, path, value }) => {
    const body = mcpMessage(method, {
      name,
      uri: 'mem://x',
      arguments: { text: 'fuzz', q: 'aaa', mb: 0.001 },
    }) as Record<string, unknown>;
    if (path === 'none') return body;
    const keys = path.split('.');
    let target = body as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
    target[keys.at(-1)!] = value;
    return body;
  });

const anyMessage = fc.oneof(mutatedEnvelope, fc.jsonValue({ maxDepth: 4 }), fc.anything({ maxDepth: 3 }));

function expectResponse(value: unknown): void {
  expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  const response = value as Record<string, unknown>;
  expect(response.jsonrpc).toBe('2.0');
  expect(['string', 'number'].includes(typeof response.id) || response.id === null).toBe(true);
  expect('result' in response !== 'error' in response).toBe(true);
  if ('error' in response) {
    const error = response.error as { code: unknown; message: unknown };
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
    expect(error.message as string).not.toMatch(/\n\s+at\s|node_modules/);
  }
}

describe('property: the kernel', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ limits: { callTimeoutMs: 1_000 } });
  });
  afterAll(() => fx.app.close());

  it('MCPServer.handleRequest never throws and answers every request with one well-formed response', async () => {
    await withoutUnhandledRejections(() =>
      fc.assert(
        fc.asyncProperty(anyMessage, async (message) => {
          const response = await fx.server.handleRequest(message);
          const isNotification =
            typeof message === 'object' &&
            message !== null &&
            !Array.isArray(message) &&
            !('id' in message) &&
            typeof (message as { method?: unknown }).method === 'string' &&
            (message as { jsonrpc?: unknown }).jsonrpc === '2.0';
          if (response === undefined) expect(isNotification).toBe(true);
          else expectResponse(JSON.parse(JSON.stringify(response)));
        }),
        { numRuns: 1_500 },
      ),
    );
  });
});

interface Exchange {
  status: number;
  contentType: string;
  body: string;
}

function send(port: number, method: string, headers: Record<string, string>, body: Buffer): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/mcp', method, headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const headerValue = fc.oneof(
  fc.constantFrom(
    'application/json',
    'text/plain',
    'application/json; charset=utf-8',
    'gzip',
    'br',
    'identity',
    'bogus',
    '2026-07-28',
    '2025-06-18',
    'tools/call',
    'tools/list',
    'echo',
    '=?base64?ZWNobw==?=',
    '=?base64?!!?=',
    'null',
    'http://localhost',
    'http://evil.example',
    'localhost',
    '127.0.0.1',
    'evil.example',
  ),
  fc.string({ unit: fc.constantFrom(...'abcXYZ019 ;=,/+?:._-"'.split('')), maxLength: 40 }),
);
const headerName = fc.constantFrom(
  'content-type',
  'content-encoding',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-param-region',
  'origin',
  'host',
  'accept',
  'mcp-session-id',
  'x-other',
);

const httpBody = fc.oneof(
  mutatedEnvelope.map((m) => Buffer.from(JSON.stringify(m))),
  fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? '')),
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
);

describe('property: the HTTP entry', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({ limits: { callTimeoutMs: 1_000 }, http: { maxBodyBytes: 64 * 1024 } }, true);
  });
  afterAll(() => fx.app.close());

  it('any method, headers and bytes get one JSON-RPC object, an SSE stream ending in one, or an empty 202; never a 5xx', async () => {
    await withoutUnhandledRejections(() =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom('POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT', 'OPTIONS'),
          fc.boolean(),
          fc.dictionary(headerName, headerValue, { maxKeys: 5 }),
          httpBody,
          async (method, conforming, extra, body) => {
            let base: Record<string, string> = { 'content-type': 'application/json' };
            if (conforming) {
              try {
                base = mcpHeaders(JSON.parse(body.toString('utf8')));
              } catch {
                // not JSON: keep the bare content type
              }
            }
            const res = await send(fx.port, method, { ...base, ...extra }, body);
            expect(res.status).toBeLessThan(500);
            if (res.status === 202) {
              expect(res.body).toBe('');
              return;
            }
            if (res.contentType.startsWith('text/event-stream')) {
              const frames = res.body.split('\n\n').filter((f) => f.startsWith('event: message'));
              expectResponse(JSON.parse(frames.at(-1)!.split('\n')[1].slice(6)));
              return;
            }
            expect(res.contentType).toMatch(/^application\/json/);
            expectResponse(JSON.parse(res.body));
          },
        ),
        { numRuns: 400 },
      ),
    );
    await expectStillServing(fx);
  });
});
