import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { ErrorCode, MCPServer, McpModule } from '../../src/index.js';
import { createTestIssuer, ISSUER, RESOURCE, type TestIssuer } from '../support/auth-tokens.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { CONFIRM, TaskJobs, WITH_TASKS_AND_FORMS } from '../support/task-jobs.js';
import { createTask, getTask, taskRequest, waitForStatus, WITH_TASKS, type Json } from '../support/task-requests.js';
import { closeListening, LiveResponse, listenOnLoopback } from '../support/sse-client.js';
import { InMemoryTaskStore } from '../../src/core/index.js';
import { TASKS_EXTENSION } from '../../src/protocol/extensions/tasks.js';

async function appWith(options: Json, jobs: TaskJobs): Promise<INestApplication> {
  const app = await createApp([
    McpModule.forRoot({ name: 'jobs', version: '1.0.0', observability: { logFailedCalls: false }, ...options }),
  ]);
  for (const tool of jobs.tools()) app.get(MCPServer).addTool(tool);
  return app;
}

const AS_CLIENT = { capabilities: WITH_TASKS_AND_FORMS };

async function create(app: INestApplication, name: string, headers: Record<string, string> = {}): Promise<string> {
  return (await createTask(app, name, {}, { ...AS_CLIENT, headers })).taskId;
}

describe('Tasks across two instances sharing one store', () => {
  let store: InMemoryTaskStore;
  let jobs: TaskJobs;
  let a: INestApplication;
  let b: INestApplication;

  beforeEach(async () => {
    store = new InMemoryTaskStore();
    jobs = new TaskJobs();
    a = await appWith({ tasks: { store } }, jobs);
    b = await appWith({ tasks: { store } }, jobs);
  });
  afterEach(async () => {
    jobs.done();
    await Promise.all([a.close(), b.close()]);
  });

  it('creates on one, reads on the other at once, and the other cancels it where it runs', async () => {
    const taskId = await create(a, 'long_job');
    expect(await getTask(b, taskId, AS_CLIENT)).toMatchObject({ taskId, status: 'working' });
    expect((await taskRequest(b, 'tasks/cancel', { taskId }, AS_CLIENT)).status).toBe(200);
    expect((jobs.stoppedBy as Error).message).toBe('The task was cancelled');
    expect(await getTask(a, taskId, AS_CLIENT)).toMatchObject({ status: 'cancelled' });
  });

  it('answers input on the other instance: the instance running the task resumes and completes it', async () => {
    const taskId = await create(a, 'confirm_job');
    const asking = await waitForStatus(b, taskId, 'input_required', AS_CLIENT);
    expect(asking.inputRequests).toEqual({
      go: { method: 'elicitation/create', params: { mode: 'form', message: 'Go on?', requestedSchema: CONFIRM } },
    });
    expect(
      (
        await taskRequest(
          b,
          'tasks/update',
          { taskId, inputResponses: { go: { action: 'accept', content: { confirm: true } } } },
          AS_CLIENT,
        )
      ).status,
    ).toBe(200);
    expect((await waitForStatus(b, taskId, 'completed', AS_CLIENT)).result.content).toEqual([
      { type: 'text', text: 'confirmed: true' },
    ]);
    expect((await getTask(a, taskId, AS_CLIENT)).status).toBe('completed');
  });

  it('completes on the instance running it, as seen from the other', async () => {
    const taskId = await create(a, 'long_job');
    jobs.done();
    expect((await waitForStatus(b, taskId, 'completed', AS_CLIENT)).result.content).toEqual([
      { type: 'text', text: 'long job done' },
    ]);
  });
});

describe('Tasks: expiry', () => {
  it('forgets a task and its result after ttlMs: tasks/get then answers -32602', async () => {
    let clock = Date.now();
    const store = new InMemoryTaskStore(() => clock);
    const jobs = new TaskJobs();
    const app = await appWith({ tasks: { store, ttlMs: 60_000 } }, jobs);
    try {
      const taskId = await create(app, 'long_job');
      jobs.done();
      await waitForStatus(app, taskId, 'completed', AS_CLIENT);
      clock += 59_000;
      expect((await getTask(app, taskId, AS_CLIENT)).status).toBe('completed');
      clock += 60_000;
      const gone = await taskRequest(app, 'tasks/get', { taskId }, AS_CLIENT);
      expect(gone.status).toBe(400);
      expect(gone.body.error).toMatchObject({
        code: ErrorCode.InvalidParams,
        message: 'Failed to retrieve task: Task not found',
      });
      expect((await taskRequest(app, 'tasks/cancel', { taskId }, AS_CLIENT)).status).toBe(400);
    } finally {
      await app.close();
    }
  });
});

describe('Tasks with authentication: a task belongs to its caller', () => {
  let issuer: TestIssuer;
  let app: INestApplication;
  let alice: Record<string, string>;
  let mallory: Record<string, string>;
  let aliceAgain: Record<string, string>;
  const jobs = new TaskJobs();

  beforeAll(async () => {
    issuer = await createTestIssuer();
    app = await appWith(
      { auth: { resource: RESOURCE, authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwks: issuer.jwks } } },
      jobs,
    );
    alice = { authorization: `Bearer ${await issuer.token({ sub: 'alice' })}` };
    mallory = { authorization: `Bearer ${await issuer.token({ sub: 'mallory' })}` };
    // A refreshed token of the same user and client: same owner.
    aliceAgain = { authorization: `Bearer ${await issuer.token({ sub: 'alice', jti: 'refreshed' })}` };
  });
  afterAll(async () => {
    jobs.done();
    await app.close();
  });

  it('answers another caller -32602 for get, update and cancel, as for a task that does not exist', async () => {
    const taskId = await create(app, 'confirm_job', alice);
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: { go: { action: 'accept', content: { confirm: true } } } }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const res = await taskRequest(app, method, params, { ...AS_CLIENT, headers: mallory });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: ErrorCode.InvalidParams,
        message: 'Failed to retrieve task: Task not found',
      });
    }
    const task = await getTask(app, taskId, { ...AS_CLIENT, headers: aliceAgain });
    expect(['working', 'input_required']).toContain(task.status);
    expect((await taskRequest(app, 'tasks/cancel', { taskId }, { ...AS_CLIENT, headers: alice })).status).toBe(200);
    expect((await getTask(app, taskId, { ...AS_CLIENT, headers: alice })).status).toBe('cancelled');
  });

  it('refuses tasks/get without a token like any MCP request (401)', async () => {
    expect((await taskRequest(app, 'tasks/get', { taskId: 'x' }, AS_CLIENT)).status).toBe(401);
  });
});

describe('Tasks: notifications/tasks on listen streams', () => {
  let app: INestApplication;
  let url: string;
  let jobs: TaskJobs;
  const open: LiveResponse[] = [];

  beforeAll(async () => {
    jobs = new TaskJobs();
    app = await appWith({}, jobs);
    url = await listenOnLoopback(app);
  });
  afterAll(async () => {
    for (const live of open) live.close();
    jobs.done();
    await closeListening(app);
  });

  const listen = async (notifications: Json, capabilities: Json = WITH_TASKS): Promise<LiveResponse> => {
    const live = await LiveResponse.post(
      url,
      mcpMessage('subscriptions/listen', { notifications }, { id: 'sub', clientCapabilities: capabilities }),
    );
    open.push(live);
    return live;
  };

  it('sends the full task state of the tasks a stream named, as tasks/get would show it', async () => {
    const taskId = await create(app, 'confirm_job');
    const other = await create(app, 'long_job');
    await waitForStatus(app, taskId, 'input_required', AS_CLIENT);
    const live = await listen({ taskIds: [taskId] });
    expect(await live.next()).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] } },
    });

    expect((await taskRequest(app, 'tasks/cancel', { taskId: other }, AS_CLIENT)).status).toBe(200);
    expect(
      (
        await taskRequest(
          app,
          'tasks/update',
          { taskId, inputResponses: { go: { action: 'accept', content: { confirm: false } } } },
          AS_CLIENT,
        )
      ).status,
    ).toBe(200);
    // The other task's cancellation came first, and this stream did not name it: the first frame is this task's.
    expect(await live.next()).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'working' } });
    const done = await live.next();
    expect(done).toMatchObject({
      method: 'notifications/tasks',
      params: { taskId, status: 'completed', result: { content: [{ type: 'text', text: 'confirmed: false' }] } },
    });
    const { resultType, _meta, ...polled } = await getTask(app, taskId, AS_CLIENT);
    expect(resultType).toBe('complete');
    expect(done.params).toEqual({ ...polled, _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' } });
  });

  it('follows at most 100 task ids per stream, and says which in its acknowledgement', async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `task-${i}`);
    const live = await listen({ taskIds: [...ids, 42] });
    expect(await live.next()).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: ids.slice(0, 100) } },
    });
  });

  it('refuses task notifications to a client without the extension: -32021', async () => {
    const res = await createMcpTestClient(app).post(
      mcpMessage('subscriptions/listen', { notifications: { taskIds: ['x'] } }, { clientCapabilities: {} }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: ErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  });
});

describe('Tasks: the call that creates one', () => {
  it('runs a tool registered with registerTool and taskSupport as a task, and refuses it without the extension', async () => {
    const app = await appWith({}, new TaskJobs());
    try {
      app.get(MCPServer).registerTool('nightly_export', 'Exports everything', { type: 'object' }, () => 'exported', {
        taskSupport: 'required',
      });
      const refused = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'nightly_export', arguments: {} }),
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe(ErrorCode.MissingRequiredClientCapability);
      const taskId = await create(app, 'nightly_export');
      expect((await waitForStatus(app, taskId, 'completed', AS_CLIENT)).result.content).toEqual([
        { type: 'text', text: 'exported' },
      ]);
    } finally {
      await app.close();
    }
  });

  it('needs the extension on that very request, whatever earlier requests declared', async () => {
    const jobs = new TaskJobs();
    const app = await appWith({}, jobs);
    try {
      await create(app, 'long_job');
      const plain = createMcpTestClient(app)
        .post(mcpMessage('tools/call', { name: 'long_job', arguments: {} }))
        .then((res) => res);
      jobs.done();
      expect((await plain).body.result).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'long job done' }],
      });
    } finally {
      await app.close();
    }
  });
});
