import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ErrorCode, MCPServer, type McpContext, type McpPrincipal } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import {
  challengeParams,
  createAuthApp,
  createTestIssuer,
  ISSUER,
  RESOURCE,
  startLocalServer,
} from '../support/auth-tokens.js';

const OBJECT = { type: 'object' } as const;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const CLIENT_BASIC = `Basic ${Buffer.from('mcp-server:s3cret').toString('base64')}`;

describe('Authorization with token introspection (RFC 7662)', () => {
  let app: INestApplication;
  let introspection: { url: string; close(): Promise<void> };
  const seen: Array<{ authorization?: string; contentType?: string; body: string }> = [];
  const now = () => Math.floor(Date.now() / 1000);
  const tokens: Record<string, () => Record<string, unknown>> = {
    'good-token': () => ({
      active: true,
      aud: RESOURCE,
      iss: ISSUER,
      sub: 'alice',
      client_id: 'app',
      scope: 'files:read',
      exp: now() + 60,
    }),
    'write-token': () => ({
      active: true,
      aud: [RESOURCE, 'https://other'],
      iss: ISSUER,
      sub: 'bob',
      scope: 'files:read files:write',
      exp: now() + 60,
    }),
    'other-audience': () => ({
      active: true,
      aud: 'https://other.example.com',
      iss: ISSUER,
      sub: 'alice',
      exp: now() + 60,
    }),
    'no-audience': () => ({ active: true, iss: ISSUER, sub: 'alice', exp: now() + 60 }),
    'other-issuer': () => ({
      active: true,
      aud: RESOURCE,
      iss: 'https://evil.example.com',
      sub: 'alice',
      exp: now() + 60,
    }),
    'expired-but-active': () => ({ active: true, aud: RESOURCE, iss: ISSUER, sub: 'alice', exp: now() - 10 }),
  };

  beforeAll(async () => {
    introspection = await startLocalServer((req, body, res) => {
      seen.push({ authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
      if (req.method !== 'POST' || req.headers.authorization !== CLIENT_BASIC) {
        res.writeHead(401).end();
        return;
      }
      const token = new URLSearchParams(body).get('token') ?? '';
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(tokens[token]?.() ?? { active: false }));
    });
    app = await createAuthApp({
      scopesSupported: ['files:read', 'files:write'],
      introspection: {
        endpoint: `${introspection.url}/introspect`,
        clientId: 'mcp-server',
        clientSecret: 's3cret',
        issuer: ISSUER,
      },
    });
    const server = app.get(MCPServer);
    server.addTool({
      name: 'whoami',
      description: 'Who is calling',
      inputSchema: OBJECT,
      handler: (_a, _r, ctx: McpContext) => (ctx.principal as McpPrincipal).subject,
    });
    server.addTool({
      name: 'write_file',
      description: 'Writes',
      inputSchema: OBJECT,
      requiredScopes: ['files:write'],
      handler: () => 'written',
    });
  });
  afterAll(async () => {
    await app.close();
    await introspection.close();
  });

  const call = (name: string, token: string) =>
    createMcpTestClient(app).post(mcpMessage('tools/call', { name, arguments: {} }), bearer(token));

  it('accepts an active token for this resource and hands its subject to the tool', async () => {
    seen.length = 0;
    const res = await call('whoami', 'good-token');
    expect(res.status).toBe(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'alice' }]);
    expect(seen).toEqual([
      {
        authorization: CLIENT_BASIC,
        contentType: 'application/x-www-form-urlencoded',
        body: 'token=good-token&token_type_hint=access_token',
      },
    ]);
  });

  it('uses the introspected scopes', async () => {
    expect((await call('write_file', 'good-token')).status).toBe(403);
    const res = await call('write_file', 'write-token');
    expect(res.status).toBe(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'written' }]);
  });

  it.each([
    ['an inactive token', 'unknown-token', /not active/],
    ['a token for another audience', 'other-audience', /not issued for this resource/],
    ['a token without an audience', 'no-audience', /not issued for this resource/],
    ['a token from another issuer', 'other-issuer', /iss claim/],
    ['an expired token the server still calls active', 'expired-but-active', /expired/],
  ])('refuses %s with 401 invalid_token', async (_label, token, description) => {
    const res = await call('whoami', token);
    expect(res.status).toBe(401);
    const params = challengeParams(res.headers['www-authenticate']);
    expect(params.error).toBe('invalid_token');
    expect(params.error_description).toMatch(description);
    expect(res.body.error.code).toBe(ErrorCode.Unauthorized);
  });

  it('answers 503, not 401, when the introspection endpoint is down', async () => {
    const down = await startLocalServer(() => undefined);
    await down.close();
    const broken = await createAuthApp({ introspection: { endpoint: `${down.url}/introspect` } });
    try {
      const res = await createMcpTestClient(broken).post(mcpMessage('server/discover'), bearer('good-token'));
      expect(res.status).toBe(503);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.body.error.code).toBe(ErrorCode.InternalError);
    } finally {
      await broken.close();
    }
  });
});

describe('Authorization with a remote JWKS', () => {
  it('fetches the keys from jwksUri, and answers 503 when they cannot be fetched', async () => {
    const issuer = await createTestIssuer();
    let fetches = 0;
    const jwksServer = await startLocalServer((_req, _body, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(issuer.jwks));
    });
    const down = await startLocalServer(() => undefined);
    await down.close();
    const makeApp = (jwksUri: string) => createAuthApp({ jwt: { issuer: ISSUER, jwksUri } });
    const app = await makeApp(`${jwksServer.url}/jwks.json`);
    const unreachable = await makeApp(`${down.url}/jwks.json`);
    try {
      expect(
        (await createMcpTestClient(app).post(mcpMessage('server/discover'), bearer(await issuer.token()))).status,
      ).toBe(200);
      expect(
        (await createMcpTestClient(app).post(mcpMessage('server/discover'), bearer(await issuer.token()))).status,
      ).toBe(200);
      expect(fetches).toBe(1);
      expect(
        (
          await createMcpTestClient(app).post(
            mcpMessage('server/discover'),
            bearer(await issuer.token({ aud: 'https://other' })),
          )
        ).status,
      ).toBe(401);
      expect(
        (await createMcpTestClient(unreachable).post(mcpMessage('server/discover'), bearer(await issuer.token())))
          .status,
      ).toBe(503);
    } finally {
      await app.close();
      await unreachable.close();
      await jwksServer.close();
    }
  });
});
