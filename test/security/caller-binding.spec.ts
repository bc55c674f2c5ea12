import 'reflect-metadata';
import { Injectable, type CanActivate, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  ErrorCode,
  getMcpServerToken,
  MCPServer,
  McpModule,
  type McpContext,
  type McpModuleOptions,
} from '../../src/index.js';
import { InMemoryTaskStore } from '../../src/core/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createTestIssuer, ISSUER, RESOURCE, type TestIssuer } from '../support/auth-tokens.js';
import { createApp } from '../support/create-app.js';
import { createTask, taskRequest, WITH_TASKS, type Json } from '../support/task-requests.js';

/**
 * One caller identity, bound everywhere (security round 2, findings 1, 2, 9 and 10, and a token refresh in the
 * middle of an input round): every case goes through the public HTTP API of a real Nest app.
 */
const SECRET = 'caller-binding-secret-0123456789abcdef-0123';
const ELICIT = { clientCapabilities: { elicitation: {} } };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function addTools(app: INestApplication): void {
  const server = app.get(MCPServer);
  server.addTool({
    name: 'delete_note',
    description: 'Deletes a note after confirmation',
    inputSchema: { type: 'object', properties: { id: { type: 'number' } } },
    handler: async (args: { id?: number }, _answers, ctx: McpContext) =>
      `delete ${args.id}: ${(await ctx.elicit(`Delete note ${args.id}?`, { type: 'object', properties: {} })).action}`,
  });
  server.addTool({
    name: 'slow_job',
    description: 'A job run as a task',
    inputSchema: { type: 'object' },
    taskSupport: 'required',
    handler: () => new Promise(() => undefined),
  });
}

/** The first round of delete_note; returns what the second round sends. */
async function firstRound(app: INestApplication, headers: Record<string, string>): Promise<Json> {
  const res = await createMcpTestClient(app).post(
    mcpMessage('tools/call', { name: 'delete_note', arguments: { id: 55 } }, ELICIT),
    headers,
  );
  expect(res.body.result?.resultType).toBe('input_required');
  const [key] = Object.keys(res.body.result.inputRequests);
  return { inputResponses: { [key]: { action: 'accept', content: {} } }, requestState: res.body.result.requestState };
}

function secondRound(app: INestApplication, headers: Record<string, string>, answer: Json) {
  return createMcpTestClient(app).post(
    mcpMessage('tools/call', { name: 'delete_note', arguments: { id: 55 }, ...answer }, ELICIT),
    headers,
  );
}

const CONFIRMED = [{ type: 'text', text: 'delete 55: accept' }];
const REFUSED = { code: ErrorCode.InvalidParams, message: 'Invalid or expired requestState' };

describe('security round 2: one caller identity', () => {
  let issuer: TestIssuer;
  let app: INestApplication;

  beforeAll(async () => {
    issuer = await createTestIssuer();
    app = await createApp([
      McpModule.forRoot({
        name: 'notes',
        version: '1.0.0',
        requestState: { secret: SECRET },
        tasks: { maxTasksPerCaller: 2 },
        auth: { resource: RESOURCE, authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwks: issuer.jwks } },
      }),
    ]);
    addTools(app);
  });
  afterAll(() => app.close());

  // Tokens with neither sub nor client_id (RFC 9068 asks for both; issuers in the wild send less).
  const nameless = (email: string) => issuer.token({ sub: undefined, client_id: undefined, email, jti: email });

  it('finding 1: identity-less tokens of one issuer do not share tasks (get, cancel, the per-caller limit)', async () => {
    const alice = bearer(await nameless('alice@example.com'));
    const bob = bearer(await nameless('bob@example.com'));
    const { taskId } = await createTask(app, 'slow_job', {}, { headers: alice });
    await createTask(app, 'slow_job', {}, { headers: alice });
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const res = await taskRequest(app, method, { taskId }, { headers: bob });
      expect(res.body.error).toMatchObject({
        code: ErrorCode.InvalidParams,
        message: expect.stringMatching(/not found/),
      });
    }
    // Alice holds her whole share of tasks; Bob still gets his own.
    const third = await taskRequest(app, 'tools/call', { name: 'slow_job', arguments: {} }, { headers: alice });
    expect(third.body.error).toMatchObject({ data: { reason: 'task_limit' } });
    await createTask(app, 'slow_job', {}, { headers: bob });
    const own = await taskRequest(app, 'tasks/get', { taskId }, { headers: alice });
    expect(own.body.result).toMatchObject({ taskId, status: 'working' });
  });

  it('a token refresh in the middle of an input round continues it (the caller is bound, not the claims)', async () => {
    const answer = await firstRound(app, bearer(await issuer.token({ sub: 'u-7', jti: 'first' })));
    const now = Math.floor(Date.now() / 1000);
    const refreshed = await issuer.token({ sub: 'u-7', jti: 'second', iat: now + 1, exp: now + 600 });
    const done = await secondRound(app, bearer(refreshed), answer);
    expect(done.body.result.content).toEqual(CONFIRMED);
  });

  it('another user cannot finish the round', async () => {
    const answer = await firstRound(app, bearer(await issuer.token({ sub: 'u-8' })));
    const other = await secondRound(app, bearer(await issuer.token({ sub: 'u-9' })), answer);
    expect(other.body.error).toMatchObject(REFUSED);
  });

  // Security round 3, finding 7: the client a token names is bound beside its subject.
  it.each([
    ['client_id', { client_id: 'client-a' }, { client_id: 'client-b' }],
    ['azp', { client_id: undefined, azp: 'client-a' }, { client_id: undefined, azp: 'client-b' }],
  ])(
    'a round begun through one client (%s) cannot be finished from another client of the same user',
    async (_, a, b) => {
      const answer = await firstRound(app, bearer(await issuer.token({ sub: 'u-10', ...a })));
      const replayed = await secondRound(app, bearer(await issuer.token({ sub: 'u-10', ...b })), answer);
      expect(replayed.body.error).toMatchObject(REFUSED);
      const now = Math.floor(Date.now() / 1000);
      const refreshed = await issuer.token({ sub: 'u-10', ...a, jti: 'refreshed', iat: now + 1 });
      expect((await secondRound(app, bearer(refreshed), answer)).body.result.content).toEqual(CONFIRMED);
    },
  );

  it("a task made through one client is not another client's of the same user", async () => {
    const through = async (client: string, jti?: string) =>
      bearer(await issuer.token({ sub: 'u-11', client_id: client, jti }));
    const { taskId } = await createTask(app, 'slow_job', {}, { headers: await through('client-a') });
    const other = await taskRequest(app, 'tasks/get', { taskId }, { headers: await through('client-b') });
    expect(other.body.error).toMatchObject({ code: ErrorCode.InvalidParams });
    const own = await taskRequest(app, 'tasks/get', { taskId }, { headers: await through('client-a', 'refreshed') });
    expect(own.body.result).toMatchObject({ taskId });
  });
});

describe('security round 2: identity from an app guard (finding 9) and a tenant bound into the state (finding 10)', () => {
  /** A cookie-session guard: `session=<user>` becomes request.user, as a Passport session strategy leaves it. */
  @Injectable()
  class CookieSessionGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
      const user = /session=([a-z]+)/.exec(req.headers.cookie ?? '')?.[1];
      if (!user) return false;
      req.user = { id: user, name: `User ${user}` };
      return true;
    }
  }

  async function guardedApp(options: Partial<McpModuleOptions> = {}): Promise<INestApplication> {
    const app = await createApp(
      [McpModule.forRoot({ name: 'notes', version: '1.0.0', requestState: { secret: SECRET }, ...options })],
      [{ provide: APP_GUARD, useClass: CookieSessionGuard }],
    );
    addTools(app);
    return app;
  }

  it("finding 9: with no auth option, another user's cookie cannot finish a user's pending round", async () => {
    const app = await guardedApp();
    try {
      const answer = await firstRound(app, { cookie: 'session=alice' });
      const stolen = await secondRound(app, { cookie: 'session=mallory' }, answer);
      expect(stolen.body.error).toMatchObject(REFUSED);
      const own = await secondRound(app, { cookie: 'session=alice' }, answer);
      expect(own.body.result.content).toEqual(CONFIRMED);
    } finally {
      await app.close();
    }
  });

  it('auth.identify alone (no resource server) tells the guard’s users apart its own way', async () => {
    // Users are one per id, whatever else the session says about them.
    const app = await guardedApp({ auth: { identify: (user: { id: string }) => user.id } });
    try {
      const { taskId } = await createTask(app, 'slow_job', {}, { headers: { cookie: 'session=alice' } });
      const foreign = await taskRequest(app, 'tasks/get', { taskId }, { headers: { cookie: 'session=bob' } });
      expect(foreign.body.error).toMatchObject({ code: ErrorCode.InvalidParams });
      const own = await taskRequest(app, 'tasks/get', { taskId }, { headers: { cookie: 'session=alice' } });
      expect(own.body.result).toMatchObject({ taskId });
    } finally {
      await app.close();
    }
  });

  it('finding 10: requestState.bind with the tenant header refuses a round finished under another tenant', async () => {
    const app = await guardedApp({
      requestState: { bind: (req: { headers: Record<string, string | undefined> }) => req.headers['x-tenant-id'] },
    });
    try {
      const inA = { cookie: 'session=alice', 'x-tenant-id': 'tenant-a' };
      const answer = await firstRound(app, inA);
      const inB = await secondRound(app, { ...inA, 'x-tenant-id': 'tenant-b' }, answer);
      expect(inB.body.error).toMatchObject(REFUSED);
      const done = await secondRound(app, inA, answer);
      expect(done.body.result.content).toEqual(CONFIRMED);
    } finally {
      await app.close();
    }
  });
});

describe('security round 2: tasks are per server (finding 2)', () => {
  it('two servers in one app sharing a task store never see or cancel each other’s tasks, nor count them', async () => {
    const tasks = { store: new InMemoryTaskStore(), maxTasks: 1 };
    const app = await createApp([
      McpModule.forRoot({ name: 'pay', version: '1.0.0', tasks, path: '/pay' }),
      McpModule.forRoot({ name: 'admin', version: '1.0.0', tasks, path: '/admin', isDefault: false }),
    ]);
    try {
      for (const name of ['pay', 'admin'])
        app.get<MCPServer>(getMcpServerToken(name)).addTool({
          name: 'slow_job',
          description: 'A job run as a task',
          inputSchema: { type: 'object' },
          taskSupport: 'required',
          handler: () => new Promise(() => undefined),
        });
      const post = (path: string, method: string, params: Json) =>
        createMcpTestClient(app, { path }).post(mcpMessage(method, params, { clientCapabilities: WITH_TASKS }));
      const created = await post('/pay', 'tools/call', { name: 'slow_job', arguments: {} });
      const { taskId } = created.body.result;
      for (const method of ['tasks/get', 'tasks/cancel']) {
        const res = await post('/admin', method, { taskId });
        expect(res.body.error).toMatchObject({ code: ErrorCode.InvalidParams });
      }
      // pay holds its whole limit of one task; admin's own limit is untouched.
      const secondPay = await post('/pay', 'tools/call', { name: 'slow_job', arguments: {} });
      expect(secondPay.body.error).toMatchObject({ data: { reason: 'task_limit' } });
      const firstAdmin = await post('/admin', 'tools/call', { name: 'slow_job', arguments: {} });
      expect(firstAdmin.body.result).toMatchObject({ resultType: 'task' });
      const still = await post('/pay', 'tasks/get', { taskId });
      expect(still.body.result).toMatchObject({ taskId, status: 'working' });
    } finally {
      await app.close();
    }
  });
});
