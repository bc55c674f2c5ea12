import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { McpHttpDriver } from '../../src/core/index.js';
import { MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { challengeParams, ISSUER, RESOURCE } from '../support/auth-tokens.js';
import { createApp } from '../support/create-app.js';
import { legacyPost, legacyRequest, postReply, legacyHeaders } from '../support/legacy-client.js';
import { closeListening, listenOnLoopback, LiveResponse } from '../support/sse-client.js';

const OBJECT = { type: 'object' } as const;
// `nobody-*` verify to a principal with no identity at all (`{}`): two different tokens no one could tell apart.
const TOKENS: Record<string, object> = {
  reader: { sub: 'reader', scope: 'files:read' },
  clerk: { sub: 'clerk', scope: 'files:read hr:read' },
  'nobody-a': {},
  'nobody-b': {},
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function filesModule(hideForbidden: boolean) {
  return McpModule.forRoot({
    name: 'files',
    version: '1.0.0',
    hideForbidden,
    auth: {
      resource: RESOURCE,
      authorizationServers: [ISSUER],
      scopesSupported: ['files:read', 'hr:read'],
      verify: (t: string) => TOKENS[t],
    },
  });
}

function register(server: MCPServer): void {
  server.addResource({ uri: 'file:///payroll.csv', name: 'payroll', requiredScopes: ['hr:read'], handler: () => 'x' });
  server.addResource({ uri: 'file:///readme.txt', name: 'readme', handler: () => 'hello' });
  server.addTool({
    name: 'raise',
    description: 'Needs hr:read',
    inputSchema: OBJECT,
    requiredScopes: ['hr:read'],
    handler: () => 'done',
  });
  server.addTool({
    name: 'ask_name',
    description: 'Elicits a name',
    inputSchema: OBJECT,
    handler: async (_args, _answers, ctx: McpContext) => {
      const answer = await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } } });
      return `Hello, ${String(answer.content?.name)}`;
    },
  });
}

describe('2025-era resources/subscribe follows the caller\u2019s scopes, as subscriptions/listen does', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createApp([filesModule(false)]);
    register(app.get(MCPServer));
  });
  afterAll(() => app.close());

  const subscribe = (token: string, uri: string, method = 'resources/subscribe') =>
    legacyPost(app, legacyRequest(method, { uri }, 's1'), bearer(token));

  it.each(['file:///payroll.csv', 'file:///%70ayroll.csv'])(
    'refuses a subscription to %s without its scope: 403 with the step-up challenge',
    async (uri) => {
      const res = await subscribe('reader', uri);
      expect(res.status).toBe(403);
      expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
        error: 'insufficient_scope',
        scope: 'hr:read',
      });
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        id: 's1',
        error: { code: -31403, data: { requiredScopes: ['hr:read'] } },
      });
    },
  );

  it('accepts a subscription the caller holds the scopes for, and one to an unscoped resource', async () => {
    expect((await subscribe('clerk', 'file:///payroll.csv')).body).toEqual({ jsonrpc: '2.0', id: 's1', result: {} });
    expect((await subscribe('reader', 'file:///readme.txt')).body).toEqual({ jsonrpc: '2.0', id: 's1', result: {} });
  });

  it('lets anyone unsubscribe: it promises nothing', async () => {
    const res = await subscribe('reader', 'file:///payroll.csv', 'resources/unsubscribe');
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({});
  });

  it('answers any other lack of scopes on this leg with the same 403 challenge (a 2025 client steps up on it)', async () => {
    const res = await legacyPost(
      app,
      legacyRequest('tools/call', { name: 'raise', arguments: {} }, 't1'),
      bearer('reader'),
    );
    expect(res.status).toBe(403);
    expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
      error: 'insufficient_scope',
      scope: 'hr:read',
    });
    expect(res.body.error.code).toBe(-31403);
  });
});

describe('2025-era resources/subscribe with hideForbidden', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createApp([filesModule(true)]);
    register(app.get(MCPServer));
  });
  afterAll(() => app.close());

  it('acknowledges a forbidden subscription as listen does, telling nothing (and nothing is ever sent)', async () => {
    const res = await legacyPost(
      app,
      legacyRequest('resources/subscribe', { uri: 'file:///payroll.csv' }, 'h1'),
      bearer('reader'),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 'h1', result: {} });
  });
});

describe('2025-era server→client requests for callers without identity', () => {
  let app: INestApplication;
  let url: string;
  let driver: McpHttpDriver;
  beforeAll(async () => {
    app = await createApp([filesModule(false)]);
    register(app.get(MCPServer));
    driver = app.get(McpHttpDriver);
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  it('asks nothing on behalf of a principal that identifies nobody: the call ends at once, nothing waits', async () => {
    const res = await legacyPost(
      app,
      legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, 'n1'),
      bearer('nobody-a'),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    // Its input rounds cannot be bound to it (nor could its replies): refused before anything is sent.
    expect(res.body).toMatchObject({
      id: 'n1',
      error: { code: -32603, message: expect.stringContaining('cannot be bound to a principal without identity') },
    });
    expect(driver.legacy?.waiting).toBe(0);
  });

  it("refuses such a caller's reply to a waiting request: 403, and the caller it was made for still answers it", async () => {
    const headers = { ...legacyHeaders(), ...bearer('reader') };
    const live = await LiveResponse.post(
      url,
      legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, 'r1'),
      headers,
    );
    const asked = await live.next();
    expect(asked).toMatchObject({ method: 'elicitation/create', id: expect.stringMatching(/^srv-/) });
    const reply = { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } };
    for (const token of ['nobody-a', 'nobody-b']) {
      const refused = await postReply(url, reply, { ...legacyHeaders(), ...bearer(token) });
      expect(refused.status).toBe(403);
    }
    expect(driver.legacy?.waiting).toBe(1);
    expect((await postReply(url, reply, headers)).status).toBe(202);
    expect(await live.next()).toEqual({
      jsonrpc: '2.0',
      id: 'r1',
      result: { content: [{ type: 'text', text: 'Hello, Ada' }] },
    });
    live.close();
    expect(driver.legacy?.waiting).toBe(0);
  });
});
