import 'reflect-metadata';
import { Injectable, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy as CustomStrategy } from 'passport-custom';
import { ErrorCode, MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { challengeParams, createAuthApp, ISSUER, RESOURCE, RESOURCE_METADATA_URL } from '../support/auth-tokens.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

const OBJECT = { type: 'object' } as const;
const USERS: Record<string, { sub: string; scope: string }> = {
  'alice-token': { sub: 'alice', scope: 'reports:read' },
};

/** A real Passport strategy: a known bearer token is its user, anything else fails (passport-custom). */
@Injectable()
class BearerUsersStrategy extends PassportStrategy(CustomStrategy, 'bearer-users') {
  validate(req: Request): unknown {
    return USERS[(req.headers.authorization ?? '').replace(/^Bearer /, '')] ?? null;
  }
}

/** The optional guard of the @nestjs/passport docs: never refuses, so a failed authentication leaves `request.user = false`. */
@Injectable()
class OptionalAuthGuard extends AuthGuard('bearer-users') {
  handleRequest<T>(_err: unknown, user: T): T {
    return user;
  }
}

function registerCanaries(app: INestApplication): { calls: number } {
  const seen = { calls: 0 };
  const server = app.get(MCPServer);
  server.addTool({
    name: 'whoami',
    description: 'Who is calling',
    inputSchema: OBJECT,
    handler: (_a, _r, ctx: McpContext) => {
      seen.calls++;
      return ctx.principal;
    },
  });
  server.addPrompt({ name: 'greeting', handler: () => 'hello' });
  server.addResource({ uri: 'file:///notes.txt', name: 'notes', handler: () => 'notes' });
  return seen;
}

describe('fromRequest behind the optional @nestjs/passport guard (issue 17, item 1)', () => {
  let app: INestApplication;
  let seen: { calls: number };

  beforeAll(async () => {
    app = await createApp(
      [
        PassportModule,
        McpModule.forRoot({
          name: 'reports',
          version: '1.0.0',
          auth: {
            resource: RESOURCE,
            authorizationServers: [ISSUER],
            scopesSupported: ['reports:read'],
            fromRequest: (req: { user?: unknown }) => req.user,
          },
        }),
      ],
      [BearerUsersStrategy, { provide: APP_GUARD, useClass: OptionalAuthGuard }],
    );
    seen = registerCanaries(app);
  });
  afterAll(() => app.close());

  it.each([
    ['tools/call', { name: 'whoami', arguments: {} }],
    ['tools/list', {}],
    ['prompts/get', { name: 'greeting' }],
    ['resources/read', { uri: 'file:///notes.txt' }],
  ])(
    'answers %s without a token with the 401 challenge, though the guard left request.user = false',
    async (method, params) => {
      const before = seen.calls;
      const res = await createMcpTestClient(app).post(mcpMessage(method, params));
      expect(res.status).toBe(401);
      expect(challengeParams(res.headers['www-authenticate'])).toEqual({
        scope: 'reports:read',
        resource_metadata: RESOURCE_METADATA_URL,
      });
      expect(res.body.error.code).toBe(ErrorCode.Unauthorized);
      expect(seen.calls).toBe(before);
    },
  );

  it('answers an unknown token the same way', async () => {
    expect(
      (
        await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'whoami', arguments: {} }), {
          authorization: 'Bearer nobody',
        })
      ).status,
    ).toBe(401);
  });

  it("serves a token the strategy knows, with the strategy's user as principal", async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'whoami', arguments: {} }), {
      authorization: 'Bearer alice-token',
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.result.content[0].text)).toEqual({ sub: 'alice', scope: 'reports:read' });
  });
});

describe('A verify function whose answer is not an object (issue 17, item 2)', () => {
  let app: INestApplication;
  let seen: { calls: number };
  const answers: Record<string, unknown> = {
    'false-token': false,
    'empty-token': '',
    'zero-token': 0,
    'null-token': null,
    'true-token': true,
    'string-token': 'alice',
    'array-token': [],
  };

  beforeAll(async () => {
    // `token === 'good' && user` is the idiom that returned false for every other token.
    app = await createAuthApp({ verify: (token: string) => (token === 'good' ? { sub: 'svc' } : answers[token]) });
    seen = registerCanaries(app);
  });
  afterAll(() => app.close());

  it.each(Object.keys(answers))('refuses %s with 401 invalid_token', async (token) => {
    const before = seen.calls;
    const res = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'whoami', arguments: {} }), {
      authorization: `Bearer ${token}`,
    });
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
      error: 'invalid_token',
      resource_metadata: RESOURCE_METADATA_URL,
    });
    expect(seen.calls).toBe(before);
  });

  it('accepts the object verify returns for a good token', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'whoami', arguments: {} }), {
      authorization: 'Bearer good',
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.result.content[0].text)).toEqual({ sub: 'svc' });
  });
});
