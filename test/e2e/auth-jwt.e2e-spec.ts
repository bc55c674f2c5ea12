import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ErrorCode, insufficientScope, MCPServer, type McpContext, type McpPrincipal } from '../../src/index.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';
import {
  challengeParams,
  createAuthApp,
  createTestIssuer,
  ISSUER,
  RESOURCE,
  RESOURCE_METADATA_URL,
  type TestIssuer,
} from '../support/auth-tokens.js';

const OBJECT = { type: 'object' } as const;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('Authorization with JWT access tokens (JWKS)', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let issuer: TestIssuer;
  let impostor: TestIssuer;

  beforeAll(async () => {
    issuer = await createTestIssuer();
    // Same kid, different key: a token it signs must fail signature verification.
    impostor = await createTestIssuer();
    app = await createAuthApp({
      scopesSupported: ['files:read', 'files:write', 'files:admin', 'offline_access'],
      scopeHierarchy: { 'files:admin': ['files:write'], 'files:write': ['files:read'] },
      jwt: { issuer: ISSUER, jwks: issuer.jwks },
    });
    mcp = createMcpTestClient(app);
    const server = app.get(MCPServer);
    server.addTool({
      name: 'whoami',
      description: 'Who is calling',
      inputSchema: OBJECT,
      handler: (_args, _answers, ctx: McpContext) => {
        const principal = ctx.principal as McpPrincipal;
        const user = (ctx.httpRequest as { user?: unknown }).user;
        return {
          subject: principal.subject,
          clientId: principal.clientId,
          scopes: principal.scopes,
          requestUser: user,
          requestUserIsPrincipal: user === principal,
        };
      },
    });
    server.addTool({
      name: 'read_file',
      description: 'Reads',
      inputSchema: OBJECT,
      requiredScopes: ['files:read'],
      handler: () => 'read',
    });
    server.addTool({
      name: 'write_file',
      description: 'Writes',
      inputSchema: OBJECT,
      requiredScopes: ['files:write'],
      handler: () => 'written',
    });
    server.addTool({
      name: 'delete_all',
      description: 'Deletes everything after confirmation',
      inputSchema: OBJECT,
      requiredScopes: ['files:read'],
      handler: async (_args, _answers, ctx: McpContext) => {
        const answer = await ctx.elicit('Sure?', { type: 'object', properties: { ok: { type: 'boolean' } } });
        return `confirmed by ${(ctx.principal as McpPrincipal).subject}: ${answer.action}`;
      },
    });
    server.addTool({
      name: 'delete_file',
      description: "Deletes a file; other users' files need files:admin",
      inputSchema: { type: 'object', properties: { owner: { type: 'string' } } },
      handler: (args: { owner?: string }, _answers, ctx: McpContext) => {
        if (args.owner !== (ctx.principal as McpPrincipal).subject)
          throw insufficientScope("deleting another user's file", ['files:admin']);
        return 'deleted';
      },
    });
    server.addResource({ uri: 'file:///public.txt', name: 'public', handler: () => 'public' });
    server.addResource({
      uri: 'file:///secret.txt',
      name: 'secret',
      requiredScopes: ['files:read'],
      handler: () => 'secret',
    });
    server.addPrompt({ name: 'greeting', handler: () => 'hello' });
    server.addPrompt({
      name: 'admin_report',
      arguments: [{ name: 'x' }],
      complete: { x: () => ['secret-value'] },
      requiredScopes: ['files:admin'],
      handler: () => 'report',
    });
  });
  afterAll(() => app.close());

  const call = (name: string, headers: Record<string, string>, id = 7) =>
    mcp.post(mcpMessage('tools/call', { name, arguments: {} }, { id }), headers);

  describe('401 flows', () => {
    it('asks for a token, with the metadata URL and the least-privileged scopes, when none is sent', async () => {
      const res = await call('whoami', {});
      expect(res.status).toBe(401);
      // files:write and files:admin include other scopes: a first token carries files:read, the rest is a step-up.
      expect(res.headers['www-authenticate']).toBe(
        `Bearer scope="files:read", resource_metadata="${RESOURCE_METADATA_URL}"`,
      );
      // Refused before the body is read: no id is known.
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: ErrorCode.Unauthorized, message: expect.stringMatching(/^Unauthorized/) },
      });
    });

    it('treats another scheme as no token', async () => {
      const res = await call('whoami', { authorization: 'Basic dXNlcjpwYXNz' });
      expect(res.status).toBe(401);
      expect(challengeParams(res.headers['www-authenticate']).error).toBeUndefined();
    });

    it.each([
      ['an empty Bearer', 'Bearer'],
      ['a token with spaces', 'Bearer abc def'],
      ['a token with quotes', 'Bearer "abc"'],
    ])('refuses %s as a malformed token', async (_label, authorization) => {
      const res = await call('whoami', { authorization });
      expect(res.status).toBe(401);
      expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
        error: 'invalid_token',
        resource_metadata: RESOURCE_METADATA_URL,
      });
    });

    const invalid: Array<[string, () => Promise<string>, RegExp]> = [
      ['a token that is not a JWT', async () => 'abc.def.ghi', /invalid/],
      ['an expired token', () => issuer.token({ exp: Math.floor(Date.now() / 1000) - 60 }), /expired/],
      ['a token without exp', () => issuer.token({ exp: undefined }), /exp claim/],
      [
        'a token for another audience',
        () => issuer.token({ aud: 'https://other.example.com/mcp' }),
        /not issued for this resource/,
      ],
      [
        'a token for another audience as well as a wrong one',
        () => issuer.token({ aud: ['https://other.example.com'] }),
        /not issued for this resource/,
      ],
      ['a token from another issuer', () => issuer.token({ iss: 'https://evil.example.com' }), /iss claim/],
      ['a token with a bad signature', () => impostor.token(), /invalid/],
      ['a token signed with an unknown key id', () => issuer.token({}, { kid: 'unknown' }), /invalid/],
      ['a token not yet valid', () => issuer.token({ nbf: Math.floor(Date.now() / 1000) + 600 }), /nbf claim/],
    ];
    it.each(invalid)('refuses %s with invalid_token', async (_label, mint, description) => {
      const res = await call('whoami', bearer(await mint()));
      expect(res.status).toBe(401);
      const params = challengeParams(res.headers['www-authenticate']);
      expect(params).toMatchObject({ error: 'invalid_token', resource_metadata: RESOURCE_METADATA_URL });
      expect(params.error_description).toMatch(description);
      expect(res.body.error.code).toBe(ErrorCode.Unauthorized);
      expect(res.body.id).toBeNull();
    });

    it('refuses a token signed with a symmetric algorithm', async () => {
      const { SignJWT } = await import('jose');
      const forged = await new SignJWT({
        iss: ISSUER,
        aud: RESOURCE,
        sub: 'x',
        exp: Math.floor(Date.now() / 1000) + 60,
      })
        .setProtectedHeader({ alg: 'HS256', kid: 'test-key' })
        .sign(new TextEncoder().encode('a-secret-that-is-long-enough-for-hs256'));
      expect((await call('whoami', bearer(forged))).status).toBe(401);
    });

    it('never reads a token from the query string', async () => {
      const token = await issuer.token();
      const body = mcpMessage('tools/call', { name: 'whoami', arguments: {} });
      const res = await createMcpTestClient(app, { path: `/mcp?access_token=${token}` }).post(body);
      expect(res.status).toBe(401);
      expect(challengeParams(res.headers['www-authenticate']).error).toBeUndefined();
    });

    it('authenticates notifications too', async () => {
      expect((await mcp.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} })).status).toBe(401);
    });

    it('still answers the transport rungs before authentication', async () => {
      await request(app.getHttpServer()).get('/mcp').expect(405);
    });
  });

  describe('with a valid token', () => {
    it("gives the principal to the tool, and the token's claims as request.user (as @nestjs/jwt's guard does)", async () => {
      const res = await call('whoami', bearer(await issuer.token({ scope: 'files:read' })));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.result.content[0].text)).toEqual({
        subject: 'user-1',
        clientId: 'client-1',
        scopes: ['files:read'],
        requestUser: expect.objectContaining({
          sub: 'user-1',
          client_id: 'client-1',
          scope: 'files:read',
          aud: RESOURCE,
        }),
        requestUserIsPrincipal: false,
      });
    });

    it('calls a tool whose scope the token has', async () => {
      const res = await call('read_file', bearer(await issuer.token({ scope: 'files:read' })));
      expect(res.status).toBe(200);
      expect(res.body.result.content).toEqual([{ type: 'text', text: 'read' }]);
    });

    it('respects the scope hierarchy: files:admin includes files:write', async () => {
      const res = await call('write_file', bearer(await issuer.token({ scope: 'files:admin' })));
      expect(res.status).toBe(200);
      expect(res.body.result.content).toEqual([{ type: 'text', text: 'written' }]);
    });
  });

  describe('403 insufficient_scope', () => {
    it('refuses a tool call without the scope, with a step-up challenge', async () => {
      const res = await call('write_file', bearer(await issuer.token({ scope: 'files:read' })), 9);
      expect(res.status).toBe(403);
      expect(challengeParams(res.headers['www-authenticate'])).toEqual({
        error: 'insufficient_scope',
        scope: 'files:write',
        resource_metadata: RESOURCE_METADATA_URL,
        error_description: 'This request requires the scopes: files:write',
      });
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: ErrorCode.InsufficientScope,
          message: expect.stringContaining('files:write'),
          data: { requiredScopes: ['files:write'] },
        },
      });
    });

    it('refuses a resource read and a prompt get without their scopes', async () => {
      const token = await issuer.token({ scope: 'files:write' }); // includes files:read, not files:admin
      const read = await mcp.post(mcpMessage('resources/read', { uri: 'file:///secret.txt' }), bearer(token));
      expect(read.status).toBe(200);
      expect(read.body.result.contents).toEqual([{ uri: 'file:///secret.txt', text: 'secret' }]);
      expect(read.body.result.cacheScope).toBe('private');
      const denied = await mcp.post(
        mcpMessage('resources/read', { uri: 'file:///secret.txt' }),
        bearer(await issuer.token()),
      );
      expect(denied.status).toBe(403);
      expect(challengeParams(denied.headers['www-authenticate']).scope).toBe('files:read');
      const prompt = await mcp.post(mcpMessage('prompts/get', { name: 'admin_report' }), bearer(token));
      expect(prompt.status).toBe(403);
      expect(challengeParams(prompt.headers['www-authenticate']).scope).toBe('files:admin');
    });

    it('lets a handler ask for more scope depending on the arguments', async () => {
      const token = await issuer.token({ scope: 'files:read' });
      expect(
        (
          await mcp.post(
            mcpMessage('tools/call', { name: 'delete_file', arguments: { owner: 'user-1' } }),
            bearer(token),
          )
        ).status,
      ).toBe(200);
      const res = await mcp.post(
        mcpMessage('tools/call', { name: 'delete_file', arguments: { owner: 'user-2' } }),
        bearer(token),
      );
      expect(res.status).toBe(403);
      expect(challengeParams(res.headers['www-authenticate'])).toMatchObject({
        error: 'insufficient_scope',
        scope: 'files:admin',
      });
    });

    it('refuses completion of a prompt the caller may not use', async () => {
      const body = mcpMessage('completion/complete', {
        ref: { type: 'ref/prompt', name: 'admin_report' },
        argument: { name: 'x', value: '' },
      });
      expect((await mcp.post(body, bearer(await issuer.token()))).status).toBe(403);
    });
  });

  describe('lists', () => {
    const names = (items: Array<{ name: string }>) => items.map((i) => i.name);

    it('shows only the tools the caller may use, as a private result', async () => {
      const reader = await mcp.post(mcpMessage('tools/list'), bearer(await issuer.token({ scope: 'files:read' })));
      expect(reader.status).toBe(200);
      expect(names(reader.body.result.tools)).toEqual(['whoami', 'read_file', 'delete_all', 'delete_file']);
      expect(reader.body.result.cacheScope).toBe('private');
      const nobody = await mcp.post(mcpMessage('tools/list'), bearer(await issuer.token()));
      expect(nobody.status).toBe(200);
      expect(names(nobody.body.result.tools)).toEqual(['whoami', 'delete_file']);
      const admin = await mcp.post(mcpMessage('tools/list'), bearer(await issuer.token({ scope: 'files:admin' })));
      expect(admin.status).toBe(200);
      expect(names(admin.body.result.tools)).toEqual([
        'whoami',
        'read_file',
        'write_file',
        'delete_all',
        'delete_file',
      ]);
      expect(admin.body.result.cacheScope).toBe('private');
    });

    it('filters resources and prompts the same way', async () => {
      const token = await issuer.token();
      const resources = await mcp.post(mcpMessage('resources/list'), bearer(token));
      expect(resources.status).toBe(200);
      expect(names(resources.body.result.resources)).toEqual(['public']);
      expect(resources.body.result.cacheScope).toBe('private');
      const prompts = await mcp.post(mcpMessage('prompts/list'), bearer(await issuer.token({ scope: 'files:admin' })));
      expect(prompts.status).toBe(200);
      expect(names(prompts.body.result.prompts)).toEqual(['greeting', 'admin_report']);
      expect(prompts.body.result.cacheScope).toBe('private');
    });
  });

  describe('request state is bound to the principal', () => {
    const caps = { clientCapabilities: { elicitation: {} } };
    const round = (token: string, extra: Record<string, unknown> = {}) =>
      mcp.post(mcpMessage('tools/call', { name: 'delete_all', arguments: {}, ...extra }, caps), bearer(token));

    it('continues across a token refresh for the same user, but not for another user', async () => {
      const first = await round(await issuer.token({ scope: 'files:read', jti: 'a' }));
      expect(first.status).toBe(200);
      expect(first.body.result.resultType).toBe('input_required');
      const [key] = Object.keys(first.body.result.inputRequests);
      const answer = {
        inputResponses: { [key]: { action: 'accept', content: { ok: true } } },
        requestState: first.body.result.requestState,
      };

      const refreshed = await issuer.token({ scope: 'files:read', jti: 'b', iat: Math.floor(Date.now() / 1000) + 1 });
      const done = await round(refreshed, answer);
      expect(done.status).toBe(200);
      expect(done.body.result.content).toEqual([{ type: 'text', text: 'confirmed by user-1: accept' }]);

      const other = await round(await issuer.token({ scope: 'files:read', sub: 'user-2' }), answer);
      expect(other.body.error).toMatchObject({
        code: ErrorCode.InvalidParams,
        message: 'Invalid or expired requestState',
      });
    });
  });

  describe('Protected Resource Metadata (RFC 9728)', () => {
    const expected = {
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      scopes_supported: ['files:read', 'files:write', 'files:admin'],
      bearer_methods_supported: ['header'],
    };

    it.each(['/.well-known/oauth-protected-resource/mcp'])('is served at %s without a token', async (path) => {
      const res = await request(app.getHttpServer()).get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual(expected);
    });

    it('is not served at another path', async () => {
      await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/other').expect(404);
    });
  });
});
