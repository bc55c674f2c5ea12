import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ErrorCode, MCPServer } from '../../src/index.js';
import type { IntrospectionVerifierOptions } from '../../src/auth/tokens/auth-options.js';
import { challengeParams, createAuthApp, ISSUER, RESOURCE, startLocalServer } from '../support/auth-tokens.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { closeListening, LiveResponse, listenOnLoopback } from '../support/sse-client.js';

const OBJECT = { type: 'object' } as const;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const nowSec = () => Math.floor(Date.now() / 1000);
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

type Answer = (res: ServerResponse) => void;
const json =
  (body: unknown): Answer =>
  (res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const active = (extra: Record<string, unknown> = {}) => ({
  active: true,
  aud: RESOURCE,
  iss: ISSUER,
  sub: 'alice',
  scope: 'files:write',
  exp: nowSec() + 60,
  ...extra,
});

/** An introspection endpoint whose answer per token is given by the test; it records what it was asked. */
async function introspectionServer(answers: Record<string, Answer>) {
  const calls: string[] = [];
  const server = await startLocalServer((_req, body, res) => {
    const token = new URLSearchParams(body).get('token') ?? '';
    calls.push(token);
    (answers[token] ?? json({ active: false }))(res);
  });
  return { ...server, calls };
}

async function appWith(
  endpoint: string,
  options: Partial<IntrospectionVerifierOptions> = {},
): Promise<INestApplication> {
  const app = await createAuthApp({ introspection: { endpoint, ...options } });
  app.get(MCPServer).addTool({
    name: 'write_file',
    description: 'Writes',
    inputSchema: OBJECT,
    requiredScopes: ['files:write'],
    handler: () => 'written',
  });
  return app;
}
const write = (app: INestApplication, token: string) =>
  createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'write_file', arguments: {} }), bearer(token));

describe('Introspection answers that must not be trusted (issue 17, item 10)', () => {
  let endpoint: Awaited<ReturnType<typeof introspectionServer>>;
  let app: INestApplication;
  let stoppedAfter = -1;

  beforeAll(async () => {
    endpoint = await introspectionServer({
      good: json(active()),
      'string-exp': json(active({ exp: String(nowSec() - 3600) })),
      'future-nbf': json(active({ nbf: nowSec() + 3600 })),
      refresh: json(active({ token_type: 'refresh_token' })),
      'id-token': json(active({ token_type: 'id_token' })),
      'bearer-type': json(active({ token_type: 'Bearer' })),
      'no-aud': json(active({ aud: undefined })),
      'other-aud': json(active({ aud: 'https://other.example.com' })),
      // 64 MiB of JSON string, streamed without a length: the reader must stop early and hang up.
      huge: (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 'a');
        let written = 0;
        res.on('close', () => (stoppedAfter = written));
        const pump = () => {
          while (written < 64 && !res.destroyed) {
            written++;
            if (!res.write(written === 1 ? Buffer.concat([Buffer.from('{"active":true,"x":"'), chunk]) : chunk))
              return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end('"}');
        };
        pump();
      },
      'huge-declared': (res) =>
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200 * 1024 * 1024) }).end(),
    });
    app = await appWith(`${endpoint.url}/introspect`);
  });
  afterAll(async () => {
    await app.close();
    await endpoint.close();
  });

  it('accepts an active access token for this resource, with token_type Bearer too', async () => {
    expect((await write(app, 'good')).status).toBe(200);
    expect((await write(app, 'bearer-type')).status).toBe(200);
  });

  it.each([
    ['an exp that is a string (in the past)', 'string-exp', /exp is not a number/],
    ['an nbf in the future', 'future-nbf', /not valid yet/],
    ['a refresh token', 'refresh', /not an access token/],
    ['an ID token', 'id-token', /not an access token/],
    ['no aud, by default', 'no-aud', /not issued for this resource/],
  ])('refuses %s with 401 invalid_token', async (_label, token, description) => {
    const res = await write(app, token);
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
      error: 'invalid_token',
      error_description: expect.stringMatching(description),
    });
  });

  it('stops reading an answer larger than maxResponseBytes and answers 503', async () => {
    const res = await write(app, 'huge');
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({
      code: ErrorCode.InternalError,
      message: 'Token verification unavailable: The introspection answer is larger than 65536 bytes',
    });
    while (stoppedAfter < 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stoppedAfter).toBeLessThan(64);
  });

  it('does not read an answer whose declared length is over the cap', async () => {
    const res = await write(app, 'huge-declared');
    expect(res.status).toBe(503);
    expect(res.body.error.message).toMatch(/larger than 65536 bytes/);
  });

  it('accepts an answer without aud when requireAudience is false, and still refuses another audience', async () => {
    const lenient = await appWith(`${endpoint.url}/introspect`, { requireAudience: false });
    try {
      expect((await write(lenient, 'no-aud')).status).toBe(200);
      expect((await write(lenient, 'other-aud')).status).toBe(401);
    } finally {
      await lenient.close();
    }
  });
});

describe('Outbound introspection budget for unknown tokens (issue 17, item 10)', () => {
  it('starts at most maxCallsPerSecond calls per second; the rest get 503 with Retry-After while a cached token keeps working', async () => {
    const endpoint = await introspectionServer({ good: json(active()) });
    const frozen = Date.now();
    const app = await appWith(`${endpoint.url}/introspect`, { maxCallsPerSecond: 5, now: () => frozen });
    try {
      expect((await write(app, 'good')).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await write(app, `made-up-${i}`);
        statuses.push(res.status);
        if (res.status === 503) expect(res.headers['retry-after']).toBe('1');
      }
      // The bucket held 5: one went to "good", four to made-up tokens; the clock does not move, so no refill.
      expect(statuses.filter((s) => s === 401)).toHaveLength(4);
      expect(statuses.filter((s) => s === 503)).toHaveLength(16);
      expect(endpoint.calls).toHaveLength(5);
      expect((await write(app, 'good')).status).toBe(200);
      expect(endpoint.calls).toHaveLength(5);
    } finally {
      await app.close();
      await endpoint.close();
    }
  });

  it('keeps at most maxConcurrentCalls in flight', async () => {
    const held: ServerResponse[] = [];
    const slow = await startLocalServer((_req, _body, res) => held.push(res));
    const app = await appWith(`${slow.url}/introspect`, { maxConcurrentCalls: 2 });
    try {
      const settled: number[] = [];
      const pending = Array.from({ length: 6 }, (_, i) =>
        write(app, `unknown-${i}`).then((res) => (settled.push(res.status), res.status)),
      );
      // Two calls are held at the endpoint; the other four are answered 503 without a call while they are.
      while (held.length < 2 || settled.length < 4) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(settled).toEqual([503, 503, 503, 503]);
      for (const res of held) json({ active: false })(res);
      expect((await Promise.all(pending)).sort()).toEqual([401, 401, 503, 503, 503, 503]);
      expect(held).toHaveLength(2);
    } finally {
      await app.close();
      await slow.close();
    }
  }, 30_000);
});

describe('Listen streams of introspected tokens without exp (issue 17, item 9)', () => {
  it('end when the token must be introspected again, so a revocation reaches them', async () => {
    const endpoint = await introspectionServer({ forever: json(active({ exp: undefined })) });
    const app = await appWith(`${endpoint.url}/introspect`, { cacheTtlMs: 500 });
    const url = await listenOnLoopback(app);
    try {
      const body = mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'sub' });
      const live = await LiveResponse.post(url, body, bearer('forever'));
      expect(live.status).toBe(200);
      expect(await live.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
      expect(await live.rest()).toEqual([
        {
          jsonrpc: '2.0',
          id: 'sub',
          result: { resultType: 'complete', _meta: expect.objectContaining({ [SUBSCRIPTION_ID]: 'sub' }) },
        },
      ]);
    } finally {
      await closeListening(app);
      await endpoint.close();
    }
  });
});
