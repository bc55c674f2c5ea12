import 'reflect-metadata';
import {
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import request from 'supertest';
import { ErrorCode, InvalidTokenError, MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestResponse } from '../../src/testing/index.js';
import { challengeParams, ISSUER, RESOURCE, RESOURCE_METADATA_URL } from '../support/auth-tokens.js';

const OBJECT = { type: 'object' } as const;
const USERS: Record<string, { userId: number; username: string; scope: string }> = {
  'alice-token': { userId: 1, username: 'alice', scope: 'reports:read' },
  'bob-token': { userId: 2, username: 'bob', scope: 'reports:read reports:write' },
};

/** Stands in for `AuthGuard('jwt')` of @nestjs/passport: validates the bearer token and sets request.user. */
@Injectable()
class JwtStyleGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>('isPublic', [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    const user = USERS[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
    if (!user) throw new UnauthorizedException();
    req.user = user;
    return true;
  }
}

/** The same, but it lets anonymous requests through and leaves the decision to the MCP endpoint. */
@Injectable()
class OptionalJwtGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    req.user = USERS[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
    return true;
  }
}

function register(app: INestApplication): void {
  const server = app.get(MCPServer);
  server.addTool({
    name: 'whoami',
    description: 'Who is calling',
    inputSchema: OBJECT,
    handler: (_a, _r, ctx: McpContext) => ({
      principal: ctx.principal,
      requestUser: (ctx.httpRequest as { user?: unknown }).user,
    }),
  });
  server.addTool({
    name: 'write_report',
    description: 'Writes',
    inputSchema: OBJECT,
    requiredScopes: ['reports:write'],
    handler: () => 'written',
  });
}

const auth = {
  resource: RESOURCE,
  authorizationServers: [ISSUER],
  scopesSupported: ['reports:read', 'reports:write'],
  fromRequest: (req: { user?: unknown }) => req.user,
};
const call = (app: INestApplication, name: string, token?: string) =>
  createMcpTestClient(app).post(
    mcpMessage('tools/call', { name, arguments: {} }),
    token ? { authorization: `Bearer ${token}` } : {},
  );
const text = (res: McpTestResponse) => JSON.parse(res.body.result.content[0].text);

describe('An existing Nest guard protects the MCP endpoint (APP_GUARD)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp(
      [McpModule.forRoot({ name: 'reports', version: '1.0.0', auth })],
      [{ provide: APP_GUARD, useClass: JwtStyleGuard }],
    );
    register(app);
  });
  afterAll(() => app.close());

  it("hands the guard's request.user to the tool as the principal", async () => {
    const res = await call(app, 'whoami', 'alice-token');
    expect(res.status).toBe(200);
    expect(text(res)).toEqual({ principal: USERS['alice-token'], requestUser: USERS['alice-token'] });
  });

  it("checks tool scopes against request.user's scopes", async () => {
    const denied = await call(app, 'write_report', 'alice-token');
    expect(denied.status).toBe(403);
    expect(challengeParams(denied.headers['www-authenticate'])).toMatchObject({
      error: 'insufficient_scope',
      scope: 'reports:write',
    });
    const list = await createMcpTestClient(app).post(mcpMessage('tools/list'), { authorization: 'Bearer alice-token' });
    expect(list.status).toBe(200);
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['whoami']);
    expect((await call(app, 'write_report', 'bob-token')).status).toBe(200);
  });

  it("answers the guard's refusal with the MCP 401 challenge, which the guard's bare 401 lacks", async () => {
    const res = await call(app, 'whoami', 'forged');
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({
      code: ErrorCode.Unauthorized,
      message: 'Unauthorized: The access token is invalid',
    });
    expect(challengeParams(res.headers['www-authenticate'])).toEqual({
      error: 'invalid_token',
      scope: 'reports:read reports:write',
      resource_metadata: RESOURCE_METADATA_URL,
      error_description: 'The access token is invalid',
    });
  });

  it('keeps the metadata document reachable though a global guard refuses anonymous requests', async () => {
    const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/mcp').expect(200);
    expect(res.body.resource).toBe(RESOURCE);
  });
});

describe('A guard that lets anonymous requests through', () => {
  it('gets the MCP 401 challenge for a request without request.user', async () => {
    const app = await createApp(
      [McpModule.forRoot({ name: 'reports', version: '1.0.0', auth })],
      [{ provide: APP_GUARD, useClass: OptionalJwtGuard }],
    );
    try {
      register(app);
      const res = await call(app, 'whoami');
      expect(res.status).toBe(401);
      expect(challengeParams(res.headers['www-authenticate'])).toEqual({
        scope: 'reports:read reports:write',
        resource_metadata: RESOURCE_METADATA_URL,
      });
      const bob = await call(app, 'whoami', 'bob-token');
      expect(bob.status).toBe(200);
      expect(text(bob).principal).toEqual(USERS['bob-token']);
    } finally {
      await app.close();
    }
  });
});

describe('A user-supplied verify function, configured with forRootAsync', () => {
  let app: INestApplication;
  const config: Record<string, string> = { MCP_RESOURCE: RESOURCE, AUTH_ISSUER: ISSUER };

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRootAsync({
        useFactory: async () => ({
          name: 'reports',
          version: '1.0.0',
          auth: {
            resource: config.MCP_RESOURCE,
            authorizationServers: [config.AUTH_ISSUER],
            verify: async (token: string) => {
              if (token === 'boom') throw new Error('database down');
              if (token === 'revoked') throw new InvalidTokenError('The access token was revoked');
              return token === 'api-key-1' ? { id: 'svc-1', scopes: ['reports:write'] } : null;
            },
          },
        }),
      }),
    ]);
    register(app);
  });
  afterAll(() => app.close());

  it('uses what verify returns as the principal', async () => {
    const res = await call(app, 'write_report', 'api-key-1');
    expect(res.status).toBe(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'written' }]);
    const whoami = await call(app, 'whoami', 'api-key-1');
    expect(whoami.status).toBe(200);
    expect(text(whoami).principal).toEqual({
      id: 'svc-1',
      scopes: ['reports:write'],
    });
  });

  it.each([
    ['an unknown token', 'nope', 'The access token is invalid'],
    ['a token verify rejects with InvalidTokenError', 'revoked', 'The access token was revoked'],
  ])('refuses %s with 401 invalid_token, without leaking errors', async (_label, token, description) => {
    const res = await call(app, 'whoami', token);
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
      error: 'invalid_token',
      error_description: description,
    });
    expect(res.body.error.code).toBe(ErrorCode.Unauthorized);
  });

  it('answers 503 when verify throws a plain Error (its database is down), so the client keeps its token', async () => {
    const res = await call(app, 'whoami', 'boom');
    expect(res.status).toBe(503);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.body.error).toEqual({
      code: ErrorCode.InternalError,
      message: 'Token verification unavailable: The verify function failed',
      data: { correlationId: expect.any(String) },
    });
    expect(JSON.stringify(res.body)).not.toContain('database down');
  });
});

describe('Without the auth option', () => {
  it('changes nothing: no token needed, no metadata served', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'open', version: '1.0.0' })]);
    try {
      app.get(MCPServer).addTool({ name: 'ping', description: 'Pings', inputSchema: OBJECT, handler: () => 'pong' });
      const res = await call(app, 'ping');
      expect(res.status).toBe(200);
      expect(res.body.result.content).toEqual([{ type: 'text', text: 'pong' }]);
      await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource').expect(404);
      await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/mcp').expect(404);
    } finally {
      await app.close();
    }
  });

  it('keeps a primitive that requires scopes closed, since no caller holds any', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'open', version: '1.0.0' })]);
    try {
      register(app);
      const list = await createMcpTestClient(app).post(mcpMessage('tools/list'));
      expect(list.status).toBe(200);
      expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['whoami']);
      const res = await call(app, 'write_report');
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.body.error.code).toBe(ErrorCode.InsufficientScope);
    } finally {
      await app.close();
    }
  });
});
