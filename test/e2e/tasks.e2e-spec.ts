import { Injectable, type INestApplication } from '@nestjs/common';
import { Args, ErrorCode, McpContext, McpCtx, McpError, McpModule, Tool, ToolError } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createTask, getTask, taskRequest, waitForStatus, WITH_TASKS } from '../support/task-requests.js';
import { TASKS_EXTENSION } from '../../src/protocol/extensions/tasks.js';

const WITH_TASKS_AND_FORMS = { ...WITH_TASKS, elicitation: {} };
const CONFIRM = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

/** A gate the test opens: the tool waits on it, so every status is observed without timing assumptions. */
class Gate {
  private open!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  stoppedBy: unknown;
  release(): void {
    this.open();
  }
}

@Injectable()
class ReportTools {
  gates: Gate[] = [];

  private nextGate(): Gate {
    const gate = new Gate();
    this.gates.push(gate);
    return gate;
  }

  @Tool({ name: 'build_report', description: 'Builds a report when the test lets it', taskSupport: 'optional' })
  async buildReport(@McpCtx() ctx: McpContext): Promise<string> {
    const gate = this.nextGate();
    ctx.reportProgress({ progress: 1, total: 2, message: 'gathering data' });
    await new Promise<void>((resolve, reject) => {
      gate.opened.then(resolve, reject);
      ctx.signal.addEventListener('abort', () => {
        gate.stoppedBy = ctx.signal.reason;
        reject(ctx.signal.reason);
      });
    });
    return `report ready (task ${ctx.taskId ?? 'none'})`;
  }

  @Tool({ name: 'broken_report', description: 'Fails with a tool error', taskSupport: 'required' })
  brokenReport(): never {
    throw new ToolError('The data source is empty');
  }

  @Tool({ name: 'lost_worker', description: 'Fails with a protocol error', taskSupport: 'required' })
  lostWorker(): never {
    throw new McpError(ErrorCode.InternalError, 'The worker went away', { worker: 7 });
  }

  @Tool({
    name: 'plain_echo',
    description: 'Never a task',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  })
  echo(@Args('text') text: string): string {
    return text;
  }

  @Tool({
    name: 'delete_file',
    description: 'Asks before deleting',
    taskSupport: 'required',
    inputSchema: { type: 'object', properties: { file: { type: 'string' } } },
  })
  async deleteFile(@Args('file') file: string, @McpCtx() ctx: McpContext): Promise<string> {
    const answer = await ctx.elicit(`Delete ${file}?`, CONFIRM, { key: 'confirm_delete' });
    return answer.action === 'accept' && answer.content?.confirm === true ? `deleted ${file}` : `kept ${file}`;
  }

  @Tool({ name: 'two_questions', description: 'Asks two things at once', taskSupport: 'required' })
  async twoQuestions(@McpCtx() ctx: McpContext): Promise<string> {
    const [name, confirm] = await Promise.all([
      ctx.elicit('Name?', NAME, { key: 'name' }),
      ctx.elicit('Sure?', CONFIRM, { key: 'sure' }),
    ]);
    return `${String(name.content?.name)} ${String(confirm.content?.confirm)}`;
  }

  @Tool({
    name: 'greet_later',
    description: 'Asks a name in the request, then greets from a task',
    taskSupport: 'required',
    deferTask: true,
  })
  async greetLater(@McpCtx() ctx: McpContext): Promise<string> {
    const answer = await ctx.elicit('Your name?', NAME, { key: 'user_name' });
    await ctx.startTask();
    return `Hello ${String(answer.content?.name)} from ${ctx.taskId}`;
  }

  @Tool({ name: 'wants_sampling', description: 'Needs sampling inside a task', taskSupport: 'required' })
  async wantsSampling(@McpCtx() ctx: McpContext): Promise<string> {
    await ctx.sample('Hi');
    return 'sampled';
  }
}

describe('Tasks (SEP-2663) over HTTP on a Nest app', () => {
  let app: INestApplication;
  let tools: ReportTools;

  beforeEach(async () => {
    app = await createApp(
      [McpModule.forRoot({ name: 'reports', version: '1.0.0', tasks: { pollIntervalMs: 250 } })],
      [ReportTools],
    );
    tools = app.get(ReportTools);
  });

  afterEach(async () => {
    for (const gate of tools.gates) gate.release();
    await app.close();
  });

  describe('capabilities', () => {
    it('advertises the extension in server/discover, and nothing on the tools', async () => {
      const discover = await createMcpTestClient(app).post(mcpMessage('server/discover'));
      expect(discover.status).toBe(200);
      expect(discover.body.result.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });
      expect(discover.body.result.capabilities).not.toHaveProperty('tasks');
      const list = await createMcpTestClient(app).post(mcpMessage('tools/list'));
      expect(list.status).toBe(200);
      for (const tool of list.body.result.tools) expect(tool).not.toHaveProperty('execution');
    });

    it('answers an optional-task tool in the request for a client without the extension', async () => {
      const call = createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'build_report', arguments: {} }));
      while (tools.gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
      tools.gates[0].release();
      const res = await call;
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'report ready (task none)' }],
      });
      expect(res.body.result).not.toHaveProperty('taskId');
    });

    it('refuses a required-task tool to a client without the extension: -32021 naming it, HTTP 400', async () => {
      const res = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'broken_report', arguments: {} }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: ErrorCode.MissingRequiredClientCapability,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });
    });

    it('never makes a task of a tool without taskSupport, and ignores the legacy task param', async () => {
      const res = await createMcpTestClient(app).post(
        mcpMessage(
          'tools/call',
          { name: 'plain_echo', arguments: { text: 'hi' }, task: { ttl: 1000, pollInterval: 10 } },
          { clientCapabilities: WITH_TASKS },
        ),
      );
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hi' }] });
    });

    it.each(['tasks/get', 'tasks/update', 'tasks/cancel'] as const)(
      'answers %s from a client without the extension with -32021, before looking the task up',
      async (method) => {
        const res = await taskRequest(
          app,
          method,
          { taskId: 'no-such-task', inputResponses: {} },
          { capabilities: {} },
        );
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({
          code: ErrorCode.MissingRequiredClientCapability,
          data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        });
      },
    );

    it.each(['tasks/result', 'tasks/list'])('answers the removed %s with -32601', async (method) => {
      const res = await createMcpTestClient(app).post(
        mcpMessage(method, { taskId: 'x' }, { clientCapabilities: WITH_TASKS }),
      );
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(ErrorCode.MethodNotFound);
    });
  });

  describe('status transitions', () => {
    it('working (found at once, with the progress message) then completed with the result', async () => {
      const created = await createTask(app, 'build_report');
      expect(created).toMatchObject({ ttlMs: 300_000, pollIntervalMs: 250 });
      expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
      for (const absent of ['result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval', 'content'])
        expect(created).not.toHaveProperty(absent);
      const first = await getTask(app, created.taskId);
      expect(first).toMatchObject({ status: 'working' });
      const working = await waitForStatus(app, created.taskId, 'working');
      expect(working).toMatchObject({ taskId: created.taskId, createdAt: created.createdAt });

      tools.gates[0].release();
      const done = await waitForStatus(app, created.taskId, 'completed');
      expect(done.result).toEqual({ content: [{ type: 'text', text: `report ready (task ${created.taskId})` }] });
      expect(done).not.toHaveProperty('error');
    });

    it('shows progress as the status message while working', async () => {
      const { taskId } = await createTask(app, 'build_report');
      // The handler reports its progress, then waits at its gate, which stays closed: the task stays working.
      // The message reaches the store a write later, so a few reads may come before it; no more than that.
      let task = await getTask(app, taskId);
      for (let reads = 1; task.statusMessage === undefined && reads < 50; reads++) {
        await new Promise((resolve) => setImmediate(resolve));
        task = await getTask(app, taskId);
      }
      expect(task).toMatchObject({ taskId, status: 'working', statusMessage: 'gathering data' });
    });

    it('ends completed with isError for a tool error', async () => {
      const { taskId } = await createTask(app, 'broken_report');
      const task = await waitForStatus(app, taskId, 'completed');
      expect(task.result).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'Error: The data source is empty' }],
      });
    });

    it('ends failed with the JSON-RPC error for a protocol error, and no result', async () => {
      const { taskId } = await createTask(app, 'lost_worker');
      const task = await waitForStatus(app, taskId, 'failed');
      expect(task.error).toEqual({
        code: ErrorCode.InternalError,
        message: 'The worker went away',
        data: { worker: 7 },
      });
      expect(task).not.toHaveProperty('result');
    });

    it('cancels mid-run: cancelled at once, the handler signalled, terminal for good', async () => {
      const { taskId } = await createTask(app, 'build_report');
      const ack = await taskRequest(app, 'tasks/cancel', { taskId });
      expect(ack.status).toBe(200);
      expect(ack.body.result.resultType).toBe('complete');
      for (const absent of ['taskId', 'status', 'result', 'error', 'inputRequests'])
        expect(ack.body.result).not.toHaveProperty(absent);
      expect((await getTask(app, taskId)).status).toBe('cancelled');
      expect((tools.gates[0].stoppedBy as Error).message).toBe('The task was cancelled');
      tools.gates[0].release();
      expect((await taskRequest(app, 'tasks/cancel', { taskId })).status).toBe(200);
      const task = await getTask(app, taskId);
      expect(task.status).toBe('cancelled');
      expect(task).not.toHaveProperty('result');
    });

    it('acks a cancel of a completed task and leaves its result', async () => {
      const { taskId } = await createTask(app, 'broken_report');
      await waitForStatus(app, taskId, 'completed');
      expect((await taskRequest(app, 'tasks/cancel', { taskId })).status).toBe(200);
      expect((await getTask(app, taskId)).status).toBe('completed');
    });
  });

  describe('input through tasks/update', () => {
    it('input_required with the request, an unknown key ignored, then completed with the answer', async () => {
      const { taskId } = await createTask(
        app,
        'delete_file',
        { file: 'a.txt' },
        { capabilities: WITH_TASKS_AND_FORMS },
      );
      const asking = await waitForStatus(app, taskId, 'input_required');
      expect(asking.inputRequests).toEqual({
        confirm_delete: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Delete a.txt?', requestedSchema: CONFIRM },
        },
      });
      const ignored = await taskRequest(app, 'tasks/update', {
        taskId,
        inputResponses: { nope: { action: 'accept', content: { confirm: true } } },
      });
      expect(ignored.status).toBe(200);
      expect(ignored.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
      const invalid = await taskRequest(app, 'tasks/update', {
        taskId,
        inputResponses: { confirm_delete: { action: 'accept', content: { confirm: 'yes' } } },
      });
      expect(invalid.status).toBe(200);
      expect(invalid.body.result.resultType).toBe('complete');
      expect((await getTask(app, taskId)).inputRequests).toHaveProperty('confirm_delete');

      expect(
        (
          await taskRequest(app, 'tasks/update', {
            taskId,
            inputResponses: { confirm_delete: { action: 'accept', content: { confirm: true } } },
          })
        ).status,
      ).toBe(200);
      const done = await waitForStatus(app, taskId, 'completed');
      expect(done.result.content).toEqual([{ type: 'text', text: 'deleted a.txt' }]);
    });

    it('takes two outstanding requests one at a time: only the unanswered one stays', async () => {
      const { taskId } = await createTask(app, 'two_questions', {}, { capabilities: WITH_TASKS_AND_FORMS });
      let task = await waitForStatus(app, taskId, 'input_required');
      while (Object.keys(task.inputRequests).length < 2) task = await getTask(app, taskId);
      expect(
        (
          await taskRequest(app, 'tasks/update', {
            taskId,
            inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
          })
        ).status,
      ).toBe(200);
      const partly = await getTask(app, taskId);
      expect(partly.status).toBe('input_required');
      expect(Object.keys(partly.inputRequests)).toEqual(['sure']);
      expect(
        (
          await taskRequest(app, 'tasks/update', {
            taskId,
            inputResponses: { sure: { action: 'accept', content: { confirm: true } } },
          })
        ).status,
      ).toBe(200);
      expect((await waitForStatus(app, taskId, 'completed')).result.content).toEqual([
        { type: 'text', text: 'Ada true' },
      ]);
    });

    it('rejects a non-object inputResponses with -32602', async () => {
      const { taskId } = await createTask(
        app,
        'delete_file',
        { file: 'b.txt' },
        { capabilities: WITH_TASKS_AND_FORMS },
      );
      const res = await taskRequest(app, 'tasks/update', { taskId, inputResponses: 'yes' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(ErrorCode.InvalidParams);
    });

    it('fails the task with -32021 when it asks for what the creating request did not declare', async () => {
      const { taskId } = await createTask(app, 'wants_sampling');
      const task = await waitForStatus(app, taskId, 'failed');
      expect(task.error).toMatchObject({
        code: ErrorCode.MissingRequiredClientCapability,
        data: { requiredCapabilities: { sampling: {} } },
      });
    });

    it('finishes input rounds in the request, then becomes a task that carries the answers (deferTask)', async () => {
      const first = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'greet_later', arguments: {} }, { clientCapabilities: WITH_TASKS_AND_FORMS }),
      );
      expect(first.status).toBe(200);
      expect(first.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { user_name: { method: 'elicitation/create' } },
      });
      expect(first.body.result).not.toHaveProperty('taskId');
      const second = await createMcpTestClient(app).post(
        mcpMessage(
          'tools/call',
          {
            name: 'greet_later',
            arguments: {},
            inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
            requestState: first.body.result.requestState,
          },
          { clientCapabilities: WITH_TASKS_AND_FORMS },
        ),
      );
      expect(second.status).toBe(200);
      expect(second.body.result).toMatchObject({ resultType: 'task', status: 'working' });
      expect(second.body.result).not.toHaveProperty('requestState');
      expect(second.body.result).not.toHaveProperty('inputRequests');
      const done = await waitForStatus(app, second.body.result.taskId, 'completed');
      expect(done.result.content).toEqual([{ type: 'text', text: `Hello Alice from ${second.body.result.taskId}` }]);
    });
  });

  describe('bad task requests', () => {
    it('answers -32602 for an unknown task id, and for a taskId that is not a string', async () => {
      const unknown = await taskRequest(app, 'tasks/get', { taskId: 'c29tZS1yYW5kb20tdGFzay1pZA' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({
        code: ErrorCode.InvalidParams,
        message: 'Failed to retrieve task: Task not found',
      });
      const numeric = await taskRequest(app, 'tasks/get', { taskId: 12 });
      expect(numeric.status).toBe(400);
      expect(numeric.body.error.code).toBe(ErrorCode.InvalidParams);
    });

    it('refuses an Mcp-Name header that is not the task id: -32020, HTTP 400', async () => {
      const { taskId } = await createTask(app, 'broken_report');
      const res = await createMcpTestClient(app).post(
        mcpMessage('tasks/get', { taskId }, { clientCapabilities: WITH_TASKS }),
        {
          'mcp-name': 'another-task',
        },
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(ErrorCode.HeaderMismatch);
      const missing = await createMcpTestClient(app).post(
        mcpMessage('tasks/get', { taskId }, { clientCapabilities: WITH_TASKS }),
        {
          'mcp-name': undefined,
        },
      );
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe(ErrorCode.HeaderMismatch);
    });
  });
});

describe('Tasks: bounds', () => {
  it('refuses a caller past maxTasksPerCaller with a come-back-later -32023 and 429, keeping the tasks it has', async () => {
    const app = await createApp(
      [McpModule.forRoot({ name: 'reports', version: '1.0.0', tasks: { maxTasksPerCaller: 1 } })],
      [ReportTools],
    );
    try {
      const { taskId } = await createTask(app, 'broken_report');
      const res = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'broken_report', arguments: {} }, { clientCapabilities: WITH_TASKS }),
      );
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('60');
      expect(res.body.error).toMatchObject({
        code: ErrorCode.RateLimited,
        data: { reason: 'task_limit', retryAfterMs: 60_000 },
      });
      expect((await waitForStatus(app, taskId, 'completed')).result.isError).toBe(true);
    } finally {
      await app.close();
    }
  });
});
