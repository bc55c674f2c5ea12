import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { IntrospectionVerifierOptions } from '../../src/auth/tokens/auth-options.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { challengeParams, createAuthApp, ISSUER, RESOURCE, startLocalServer } from '../support/auth-tokens.js';
import { OAuthResourceServer } from '../../src/auth/oauth-resource-server.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const START = Math.floor(Date.now() / 1000) * 1000;

describe('Caching of token introspection', () => {
  let introspection: { url: string; close(): Promise<void> };
  /** Introspection calls per token, as the authorization server saw them. */
  let calls: Record<string, number>;
  /** What the authorization server answers per token; a token not here is inactive. */
  let answers: Record<string, () => Record<string, unknown> | 'outage'>;
  /** The fake clock the verifier reads, in milliseconds. */
  let clock: number;
  const apps: INestApplication[] = [];
  const active =
    (exp = START / 1000 + 3600) =>
    () => ({ active: true, aud: RESOURCE, iss: ISSUER, sub: 'alice', exp });

  beforeAll(async () => {
    introspection = await startLocalServer((_req, body, res) => {
      const token = new URLSearchParams(body).get('token') ?? '';
      calls[token] = (calls[token] ?? 0) + 1;
      const answer = answers[token]?.() ?? { active: false };
      if (answer === 'outage') res.writeHead(500).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  beforeEach(() => {
    calls = {};
    answers = {};
    clock = START;
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(() => introspection.close());

  const options = (extra: Partial<IntrospectionVerifierOptions> = {}): IntrospectionVerifierOptions => ({
    endpoint: `${introspection.url}/introspect`,
    issuer: ISSUER,
    now: () => clock,
    ...extra,
  });
  const appWith = async (extra?: Partial<IntrospectionVerifierOptions>) => {
    const app = await createAuthApp({ introspection: options(extra) });
    apps.push(app);
    return async (token: string, status: number) => {
      const res = await createMcpTestClient(app).post(mcpMessage('server/discover'), bearer(token));
      expect(res.status).toBe(status);
      return res;
    };
  };

  it('asks the authorization server once for many requests with the same token, and once per token', async () => {
    answers = { a: active(), b: active() };
    const request = await appWith();
    for (let i = 0; i < 5; i++) await request('a', 200);
    await request('b', 200);
    expect(calls).toEqual({ a: 1, b: 1 });
  });

  it('never uses a cached token past its exp: it asks again, and the expired token is refused', async () => {
    answers = { short: active(START / 1000 + 30) };
    const request = await appWith();
    await request('short', 200);
    clock = START + 29_999;
    await request('short', 200);
    expect(calls.short).toBe(1);
    clock = START + 30_000;
    const res = await request('short', 401);
    expect(challengeParams(res.headers['www-authenticate']).error_description).toMatch(/expired/);
    expect(calls.short).toBe(2);
  });

  it('asks again once cacheTtlMs has passed, even for a token that expires much later', async () => {
    answers = { long: active() };
    const request = await appWith({ cacheTtlMs: 10_000 });
    await request('long', 200);
    clock = START + 9_999;
    await request('long', 200);
    expect(calls.long).toBe(1);
    clock = START + 10_000;
    await request('long', 200);
    expect(calls.long).toBe(2);
  });

  it('asks on every request with cacheTtlMs: 0, for accepted and refused tokens alike', async () => {
    answers = { a: active() };
    const request = await appWith({ cacheTtlMs: 0 });
    for (let i = 0; i < 3; i++) {
      await request('a', 200);
      await request('inactive', 401);
    }
    expect(calls).toEqual({ a: 3, inactive: 3 });
  });

  it('keeps at most cacheMaxEntries tokens, evicting the least recently used', async () => {
    answers = { t1: active(), t2: active(), t3: active() };
    const request = await appWith({ cacheMaxEntries: 2 });
    await request('t1', 200);
    await request('t2', 200);
    await request('t1', 200); // t1 is now the most recently used, so t3 evicts t2
    await request('t3', 200);
    expect(calls).toEqual({ t1: 1, t2: 1, t3: 1 });
    await request('t1', 200);
    await request('t3', 200);
    expect(calls).toEqual({ t1: 1, t2: 1, t3: 1 });
    await request('t2', 200);
    expect(calls).toEqual({ t1: 1, t2: 2, t3: 1 });
  });

  it('does not cache an inactive token as active, and remembers the refusal only for negativeCacheTtlMs', async () => {
    const request = await appWith({ negativeCacheTtlMs: 2_000 });
    const res = await request('later', 401);
    expect(challengeParams(res.headers['www-authenticate']).error_description).toMatch(/not active/);
    answers.later = active(); // e.g. the authorization server's replicas caught up
    clock = START + 1_999;
    expect(challengeParams((await request('later', 401)).headers['www-authenticate']).error_description).toMatch(
      /not active/,
    );
    expect(calls.later).toBe(1);
    clock = START + 2_000;
    await request('later', 200);
    expect(calls.later).toBe(2);
  });

  it('does not cache refusals with negativeCacheTtlMs: 0, nor an outage ever', async () => {
    answers = { flaky: () => 'outage' };
    const request = await appWith({ negativeCacheTtlMs: 0 });
    await request('inactive', 401);
    await request('inactive', 401);
    await request('flaky', 503);
    answers.flaky = active();
    await request('flaky', 200);
    expect(calls).toEqual({ inactive: 2, flaky: 2 });
  });

  describe('concurrent requests with the same token', () => {
    // Called without awaiting in between, every authenticate() reaches the verifier before any answer can arrive.
    const authenticateAll = (server: OAuthResourceServer, tokens: string[]) =>
      Promise.all(tokens.map((token) => server.authenticate({ headers: bearer(token) } as IncomingMessage, {})));
    const serverWith = (extra: Partial<IntrospectionVerifierOptions>) =>
      new OAuthResourceServer({ resource: RESOURCE, authorizationServers: [ISSUER], introspection: options(extra) });

    it('share one introspection, even with caching off', async () => {
      answers = { a: active() };
      const server = serverWith({ cacheTtlMs: 0 });
      const results = await authenticateAll(server, ['a', 'a', 'a', 'a', 'a', 'inactive', 'inactive']);
      expect(results.map((r) => (r.ok ? 'ok' : r.status))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 401, 401]);
      expect(calls).toEqual({ a: 1, inactive: 1 });
      await authenticateAll(server, ['a']);
      expect(calls).toEqual({ a: 2, inactive: 1 });
    });

    it('share one outage, which the next request retries', async () => {
      answers = { flaky: () => 'outage' };
      const server = serverWith({});
      const results = await authenticateAll(server, ['flaky', 'flaky', 'flaky']);
      expect(results.map((r) => (r.ok ? 'ok' : r.status))).toEqual([503, 503, 503]);
      answers.flaky = active();
      expect((await authenticateAll(server, ['flaky']))[0].ok).toBe(true);
      expect(calls.flaky).toBe(2);
    });
  });

  it.each([
    [{ cacheTtlMs: -1 }, /cacheTtlMs must be a number of milliseconds/],
    [{ negativeCacheTtlMs: Number.NaN }, /negativeCacheTtlMs must be a number of milliseconds/],
    [{ cacheMaxEntries: 0 }, /cacheMaxEntries must be a positive integer/],
    [{ cacheMaxEntries: 1.5 }, /cacheMaxEntries must be a positive integer/],
  ])('refuses %j at start-up', (extra, message) => {
    expect(
      () =>
        new OAuthResourceServer({ resource: RESOURCE, authorizationServers: [ISSUER], introspection: options(extra) }),
    ).toThrow(message);
  });
});
