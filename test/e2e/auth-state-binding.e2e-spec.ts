import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ErrorCode, MCPServer, McpModule, type McpContext } from '../../src/index.js';
import type { McpAuthOptions } from '../../src/auth/tokens/auth-options.js';
import { createTestIssuer, ISSUER, type TestIssuer } from '../support/auth-tokens.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

const SECRET = 'shared-state-secret-0123456789abcdef-0123';
const caps = { clientCapabilities: { elicitation: {} } };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function appFor(resource: string, auth: Partial<McpAuthOptions>): Promise<INestApplication> {
  const app = await createApp([
    McpModule.forRoot({
      name: 'files',
      version: '1.0.0',
      requestState: { secret: SECRET },
      auth: { resource, authorizationServers: [ISSUER], ...auth },
    }),
  ]);
  app.get(MCPServer).addTool({
    name: 'delete_all',
    description: 'Deletes everything after confirmation',
    inputSchema: { type: 'object' },
    handler: async (_args, _answers, ctx: McpContext) =>
      `confirmed: ${(await ctx.elicit('Sure?', { type: 'object', properties: {} })).action}`,
  });
  return app;
}

const round = (app: INestApplication, token: string, extra: Record<string, unknown> = {}) =>
  createMcpTestClient(app).post(
    mcpMessage('tools/call', { name: 'delete_all', arguments: {}, ...extra }, caps),
    bearer(token),
  );

/** Runs the first round and returns what the second round sends. */
async function firstRound(app: INestApplication, token: string): Promise<Record<string, unknown>> {
  const first = await round(app, token);
  expect(first.status).toBe(200);
  expect(first.body.result.resultType).toBe('input_required');
  const [key] = Object.keys(first.body.result.inputRequests);
  return { inputResponses: { [key]: { action: 'accept', content: {} } }, requestState: first.body.result.requestState };
}

describe('Request state bound to principals without identity claims (issue 17, item 7)', () => {
  let issuer: TestIssuer;
  let app: INestApplication;
  const RESOURCE = 'https://mcp.example.com/mcp';

  beforeAll(async () => {
    issuer = await createTestIssuer();
    app = await appFor(RESOURCE, { jwt: { issuer: ISSUER, jwks: issuer.jwks } });
  });
  afterAll(() => app.close());

  // RFC 9068 requires iss, exp, aud, sub, client_id, iat and jti, but servers in the wild send less; an issuer is not a user.
  // What tells such callers apart is their claims but the time-varying ones (exp, iat, nbf, jti, auth_time).
  const anonymous = (email: string, jti: string) => issuer.token({ sub: undefined, client_id: undefined, email, jti });

  it("refuses one identity-less token's state to another", async () => {
    const answer = await firstRound(app, await anonymous('a@example.com', 'token-of-a'));
    const replay = await round(app, await anonymous('b@example.com', 'token-of-b'), answer);
    expect(replay.body.error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: 'Invalid or expired requestState',
    });
  });

  it('still continues the round with the same token', async () => {
    const token = await anonymous('c@example.com', 'token-of-c');
    const answer = await firstRound(app, token);
    const done = await round(app, token, answer);
    expect(done.status).toBe(200);
    expect(done.body.result.content).toEqual([{ type: 'text', text: 'confirmed: accept' }]);
  });

  it('continues the round with a refreshed token of the same claims (a new jti)', async () => {
    const answer = await firstRound(app, await anonymous('d@example.com', 'first-token-of-d'));
    const done = await round(app, await anonymous('d@example.com', 'refreshed-token-of-d'), answer);
    expect(done.status).toBe(200);
    expect(done.body.result.content).toEqual([{ type: 'text', text: 'confirmed: accept' }]);
  });
});

describe('A principal whose JSON identifies nobody (issue 17, item 7)', () => {
  it('gets -32603 instead of state anyone could replay', async () => {
    const app = await appFor('https://mcp.example.com/mcp', { verify: () => ({}) });
    try {
      const res = await round(app, 'anything');
      expect(res.body.error).toMatchObject({
        code: ErrorCode.InternalError,
        message: expect.stringMatching(/principal without identity/),
      });
    } finally {
      await app.close();
    }
  });
});

describe('Request state across servers that share requestState.secret (issue 17, item 12)', () => {
  it('is refused by a server with another resource URI, though name, tool, arguments and user are the same', async () => {
    const verify = () => ({ sub: 'alice' });
    const files = await appFor('https://files.example.com/mcp', { verify });
    const mail = await appFor('https://mail.example.com/mcp', { verify });
    try {
      const answer = await firstRound(files, 'token');
      const replay = await round(mail, 'token', answer);
      expect(replay.body.error).toMatchObject({
        code: ErrorCode.InvalidParams,
        message: 'Invalid or expired requestState',
      });
      const done = await round(files, 'token', answer);
      expect(done.status).toBe(200);
      expect(done.body.result.content).toEqual([{ type: 'text', text: 'confirmed: accept' }]);
    } finally {
      await files.close();
      await mail.close();
    }
  });
});
