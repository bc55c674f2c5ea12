import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ErrorCode, MCPServer } from '../../src/index.js';
import type { McpAuthOptions } from '../../src/auth/tokens/auth-options.js';
import {
  challengeParams,
  createAuthApp,
  createTestIssuer,
  ISSUER,
  startLocalServer,
  type TestIssuer,
} from '../support/auth-tokens.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

const OBJECT = { type: 'object' } as const;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function appWith(jwt: McpAuthOptions['jwt']): Promise<INestApplication> {
  const app = await createAuthApp({ scopesSupported: ['files:read', 'admin'], jwt });
  const server = app.get(MCPServer);
  server.addTool({ name: 'ping', description: 'Pings', inputSchema: OBJECT, handler: () => 'pong' });
  server.addTool({
    name: 'wipe',
    description: 'Admin only',
    inputSchema: OBJECT,
    requiredScopes: ['admin'],
    handler: () => 'wiped',
  });
  return app;
}
const ping = (app: INestApplication, token: string) =>
  createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'ping', arguments: {} }), bearer(token));

describe('JWT verification when the JWKS endpoint misbehaves (issue 17, item 3)', () => {
  let issuer: TestIssuer;
  let mode: 'ok' | '500' | 'html' = 'ok';
  let jwks: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    issuer = await createTestIssuer();
    jwks = await startLocalServer((_req, _body, res) => {
      if (mode === '500') res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded');
      else if (mode === 'html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(issuer.jwks));
    });
  });
  afterAll(() => jwks.close());

  it.each([
    ['a 5xx', '500'],
    ['a body that is not JSON', 'html'],
  ] as const)('answers 503, not 401 invalid_token, when the JWKS answers %s', async (_label, failure) => {
    mode = failure;
    const app = await appWith({ issuer: ISSUER, jwksUri: `${jwks.url}/jwks` });
    try {
      const res = await ping(app, await issuer.token());
      expect(res.status).toBe(503);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.body.error).toEqual({
        code: ErrorCode.InternalError,
        message: 'Token verification unavailable: The authorization server keys could not be fetched',
        // The failed-call log line's reference, so an operator can find the cause.
        data: { correlationId: expect.any(String) },
      });
      // Once the endpoint is back, the same token works: it was never the token's fault.
      mode = 'ok';
      expect((await ping(app, await issuer.token())).status).toBe(200);
    } finally {
      mode = 'ok';
      await app.close();
    }
  });
});

describe('JWT typ header (issue 17, item 8)', () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await createTestIssuer();
  });

  it.each([
    ['an ID token (typ id_token+jwt)', 'id_token+jwt'],
    ['a generic JWT (typ JWT)', 'JWT'],
    ['a token without typ', null],
  ])('refuses %s as an access token by default', async (_label, typ) => {
    const app = await appWith({ issuer: ISSUER, jwks: issuer.jwks });
    try {
      const res = await ping(app, await issuer.token({}, { typ }));
      expect(res.status).toBe(401);
      expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
        error: 'invalid_token',
        error_description: expect.stringMatching(/not an access token/),
      });
    } finally {
      await app.close();
    }
  });

  it('accepts at+jwt in any spelling RFC 7515 allows', async () => {
    const app = await appWith({ issuer: ISSUER, jwks: issuer.jwks });
    try {
      expect((await ping(app, await issuer.token({}, { typ: 'application/AT+JWT' }))).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('accepts typ JWT when configured for an authorization server that sends it, and still refuses ID tokens', async () => {
    const app = await appWith({ issuer: ISSUER, jwks: issuer.jwks, typ: ['at+jwt', 'JWT'] });
    try {
      expect((await ping(app, await issuer.token({}, { typ: 'JWT' }))).status).toBe(200);
      expect((await ping(app, await issuer.token({}, { typ: 'id_token+jwt' }))).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('A non-standard scopes claim beside scope (issue 17, item 13)', () => {
  it('grants the standard scope only', async () => {
    const issuer = await createTestIssuer();
    const app = await appWith({ issuer: ISSUER, jwks: issuer.jwks });
    try {
      const token = await issuer.token({ scope: 'files:read', scopes: ['admin'] });
      const res = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'wipe', arguments: {} }),
        bearer(token),
      );
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe(ErrorCode.InsufficientScope);
      const list = await createMcpTestClient(app).post(mcpMessage('tools/list'), bearer(token));
      expect(list.status).toBe(200);
      expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['ping']);
    } finally {
      await app.close();
    }
  });
});

describe('Plain-http key and introspection endpoints (issue 17, operator trap)', () => {
  it.each([
    [
      'a JWKS',
      { jwt: { issuer: ISSUER, jwksUri: 'http://auth.example.com/jwks' } },
      /auth\.jwt\.jwksUri is plain http/,
    ],
    [
      'an introspection endpoint',
      { introspection: { endpoint: 'http://auth.example.com/introspect' } },
      /auth\.introspection\.endpoint is plain http/,
    ],
  ])('refuses %s on a non-loopback host at start-up', async (_label, auth, message) => {
    await expect(createAuthApp(auth)).rejects.toThrow(message);
  });

  it.each([
    ['on loopback', { jwt: { issuer: ISSUER, jwksUri: 'http://127.0.0.1:9/jwks' } }],
    [
      'with allowInsecureHttp',
      { introspection: { endpoint: 'http://auth.internal/introspect', allowInsecureHttp: true } },
    ],
  ])('accepts plain http %s', async (_label, auth) => {
    const app = await createAuthApp(auth);
    await app.close();
  });
});
