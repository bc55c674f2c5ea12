import 'reflect-metadata';
import { jest } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import { InputRequired, MCPServer, McpModule, type McpContext, type McpToolRegistration } from '../../src/index.js';
import { McpKernel, McpStdioDriver, type McpCall } from '../../src/core/index.js';
import { McpRedisBackends, McpRedisModule } from '../../src/redis/index.js';
import { mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS, type HttpAdapterName } from '../support/create-app.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { CONFIRM, TaskJobs, WITH_TASKS_AND_FORMS } from '../support/task-jobs.js';
import { getTask, taskRequest, waitForStatus, WITH_TASKS, type Json } from '../support/task-requests.js';

/**
 * SEP-2663's immediate-result shortcut: a client that declares the tasks extension, calling a tool with optional
 * task support, gets the result itself when the handler settles within `tasks.immediateResultMs` (an event-loop
 * turn by default) without asking for input, and nothing is stored; anything else becomes a task as before.
 */

jest.setTimeout(30_000);

// A wait on a timer: past the default window (an event-loop turn), well within a widened one.
const LOOKUP_MS = 20;

/** The tools every app here serves, beside `TaskJobs`' `long_job` (optional, waits) and `confirm_job` (required, asks). */
function tools(): McpToolRegistration[] {
  return [
    {
      name: 'add',
      description: 'Adds at once',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      taskSupport: 'optional',
      handler: ({ a, b }: { a: number; b: number }) => a + b,
    },
    {
      name: 'add_as_task',
      description: 'Adds at once, always as a task',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      taskSupport: 'required',
      handler: ({ a, b }: { a: number; b: number }) => a + b,
    },
    // confirm_job's method, with optional task support: it asks before anything else.
    {
      ...new TaskJobs().tools().find((tool) => tool.name === 'confirm_job')!,
      name: 'asks_first',
      taskSupport: 'optional',
    },
    {
      name: 'defer_then_add',
      description: 'Goes on as a task when it says so, then adds at once',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      taskSupport: 'optional',
      deferTask: true,
      handler: async ({ a, b }: { a: number; b: number }, _answers, ctx: McpContext) => {
        await ctx.startTask();
        return a + b;
      },
    },
    // The multi-round style: it throws for its input, and runs again with the answer.
    {
      name: 'throws_for_input',
      description: 'Throws InputRequired until it has its answer',
      inputSchema: { type: 'object' },
      taskSupport: 'optional',
      handler: async (_args, answers) => {
        const answer = answers.go as { content?: { confirm?: boolean } } | undefined;
        if (!answer)
          throw new InputRequired({
            go: { method: 'elicitation/create', params: { message: 'Go on?', requestedSchema: CONFIRM } },
          });
        return `confirmed: ${String(answer.content?.confirm)}`;
      },
    },
    {
      name: 'lookup',
      description: 'Answers after a short wait on a timer, as a cache miss would',
      inputSchema: { type: 'object' },
      taskSupport: 'optional',
      handler: async (_args, _answers, ctx: McpContext) => {
        ctx.reportProgress({ progress: 1, message: 'looking up' });
        await sleep(LOOKUP_MS, undefined, { signal: ctx.signal });
        return 'found';
      },
    },
  ];
}

async function appWith(adapter: HttpAdapterName, tasks: Json, jobs = new TaskJobs()): Promise<INestApplication> {
  const app = await createApp([McpModule.forRoot({ name: 'shortcut', version: '1.0.0', tasks })], [], adapter);
  for (const tool of [...tools(), ...jobs.tools()]) app.get(MCPServer).addTool(tool);
  return app;
}

async function call(app: INestApplication, name: string, args: Json = {}, capabilities: Json = WITH_TASKS) {
  const res = await taskRequest(app, 'tools/call', { name, arguments: args }, { capabilities });
  expect(res.status).toBeLessThan(500);
  return res.body as { result?: Json; error?: Json };
}

describe.each(HTTP_ADAPTERS)('tasks: the immediate-result shortcut (%s)', (adapter) => {
  let app: INestApplication;
  const jobs = new TaskJobs();
  beforeAll(async () => {
    app = await appWith(adapter, {}, jobs);
  });
  afterAll(async () => {
    jobs.done();
    await app.close();
  });

  it('answers a tool with optional task support that settles at once with its result, no task', async () => {
    const { result } = await call(app, 'add', { a: 2, b: 3 });
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: '5' }] });
    expect(result).not.toHaveProperty('taskId');
  });

  it('makes a task of a call still running at the end of the window; the handler goes on in it and cancel stops it', async () => {
    const { result: created } = await call(app, 'long_job');
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(await getTask(app, created!.taskId)).toMatchObject({ status: 'working' });
    expect((await taskRequest(app, 'tasks/cancel', { taskId: created!.taskId })).status).toBe(200);
    expect(await waitForStatus(app, created!.taskId, 'cancelled')).toMatchObject({ status: 'cancelled' });
    expect(String(jobs.stoppedBy)).toContain('cancelled');
  });

  it('keeps the progress a handler reported in the window as the status of the task it became', async () => {
    const { result: created } = await call(app, 'lookup');
    expect(created).toMatchObject({ resultType: 'task' });
    const done = await waitForStatus(app, created!.taskId, 'completed');
    expect(done).toMatchObject({ statusMessage: 'looking up', result: { content: [{ type: 'text', text: 'found' }] } });
  });

  it('makes a task of a call that asks for input before it settles: input_required, then its answer completes it', async () => {
    const { result: created } = await call(app, 'asks_first', {}, WITH_TASKS_AND_FORMS);
    expect(created).toMatchObject({ resultType: 'task' });
    const options = { capabilities: WITH_TASKS_AND_FORMS };
    const waiting = await waitForStatus(app, created!.taskId, 'input_required', options);
    expect(waiting.inputRequests.go).toMatchObject({ method: 'elicitation/create' });
    const inputResponses = { go: { action: 'accept', content: { confirm: true } } };
    await taskRequest(app, 'tasks/update', { taskId: created!.taskId, inputResponses }, options);
    const done = await waitForStatus(app, created!.taskId, 'completed', options);
    expect(done.result.content).toEqual([{ type: 'text', text: 'confirmed: true' }]);
  });

  it('makes a task of a call that throws InputRequired in the window, and runs the method again with its answer', async () => {
    const { result: created } = await call(app, 'throws_for_input', {}, WITH_TASKS_AND_FORMS);
    expect(created).toMatchObject({ resultType: 'task' });
    const options = { capabilities: WITH_TASKS_AND_FORMS };
    await waitForStatus(app, created!.taskId, 'input_required', options);
    const inputResponses = { go: { action: 'accept', content: { confirm: true } } };
    await taskRequest(app, 'tasks/update', { taskId: created!.taskId, inputResponses }, options);
    const done = await waitForStatus(app, created!.taskId, 'completed', options);
    expect(done.result.content).toEqual([{ type: 'text', text: 'confirmed: true' }]);
  });

  it('always makes a task of a tool with required task support, however fast', async () => {
    const { result: created } = await call(app, 'add_as_task', { a: 2, b: 3 });
    expect(created).toMatchObject({ resultType: 'task' });
    const done = await waitForStatus(app, created!.taskId, 'completed');
    expect(done.result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('makes a task of a deferTask tool that calls ctx.startTask(), however fast it then settles', async () => {
    const { result: created } = await call(app, 'defer_then_add', { a: 2, b: 3 });
    expect(created).toMatchObject({ resultType: 'task' });
    const done = await waitForStatus(app, created!.taskId, 'completed');
    expect(done.result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('answers a client without the extension in its request, as before', async () => {
    const { result } = await call(app, 'lookup', {}, {});
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'found' }] });
  });
});

describe('tasks.immediateResultMs', () => {
  // On each adapter: the handler's signal follows the request's through a widened window, and must not fire early.
  it.each(HTTP_ADAPTERS)(
    'widens the window (%s): a handler that waits on a timer within it is answered with its result',
    async (adapter) => {
      const app = await appWith(adapter, { immediateResultMs: 30_000 });
      try {
        const { result } = await call(app, 'lookup');
        expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'found' }] });
      } finally {
        await app.close();
      }
    },
  );

  it('false makes a task of every call of the extension, the fastest too', async () => {
    const app = await appWith('fastify', { immediateResultMs: false });
    try {
      const { result: created } = await call(app, 'add', { a: 2, b: 3 });
      expect(created).toMatchObject({ resultType: 'task' });
      expect((await waitForStatus(app, created!.taskId, 'completed')).result.content).toEqual([
        { type: 'text', text: '5' },
      ]);
    } finally {
      await app.close();
    }
  });

  it.each([-1, 1.5, 60_001, true, '10'])('stops start-up on %p, naming the option', async (value) => {
    expect(() => new McpKernel({ name: 'k', version: '1', tasks: { immediateResultMs: value as number } })).toThrow(
      /tasks\.immediateResultMs must be false or an integer from 0 to 60000/,
    );
    await expect(
      createApp([McpModule.forRoot({ name: 'k', version: '1', tasks: { immediateResultMs: value as number } })]),
    ).rejects.toThrow(/tasks\.immediateResultMs/);
  });
});

describe('tasks.immediateResultMs and limits.callTimeoutMs', () => {
  it('stops start-up on a window that reaches the call deadline: a call still running then could never become a task', async () => {
    const options = { name: 'k', version: '1', tasks: { immediateResultMs: 5_000 }, limits: { callTimeoutMs: 5_000 } };
    expect(() => new McpKernel(options)).toThrow(
      /tasks\.immediateResultMs \(5000\) must be under limits\.callTimeoutMs/,
    );
    expect(() => new McpKernel({ ...options, limits: { callTimeoutMs: 0 } })).not.toThrow();
    expect(() => new McpKernel({ ...options, tasks: { immediateResultMs: 4_999 } })).not.toThrow();
  });
});

describe('tasks: the shortcut and the admission limits', () => {
  it('counts only what becomes a task: at its limit a caller still gets results at once, and a slow call is refused and its handler stopped', async () => {
    const jobs = new TaskJobs();
    const app = await appWith('express', { maxTasksPerCaller: 1 }, jobs);
    try {
      const { result: held } = await call(app, 'long_job');
      expect(held).toMatchObject({ resultType: 'task' });
      for (let i = 0; i < 3; i++)
        expect((await call(app, 'add', { a: i, b: 1 })).result).toMatchObject({ resultType: 'complete' });
      const refused = await call(app, 'long_job');
      expect(refused.error).toMatchObject({ code: -32023, data: { reason: 'task_limit' } });
      // The refused call's handler had started in the window: it is stopped, the held task goes on.
      expect(String(jobs.stoppedBy)).toContain('could not be created');
      expect(await getTask(app, held!.taskId)).toMatchObject({ status: 'working' });
      jobs.done();
      expect(await waitForStatus(app, held!.taskId, 'completed')).toMatchObject({ status: 'completed' });
    } finally {
      await app.close();
    }
  });
});

describe('tasks: the shortcut on the Redis task store', () => {
  it('stores nothing for a call answered at once, and the task of a slow one as before', async () => {
    const keyPrefix = testKeyPrefix();
    const redis = new Redis(MACHINE_REDIS_URL);
    const jobs = new TaskJobs();
    const app = await createApp([
      McpRedisModule.forRoot({ url: MACHINE_REDIS_URL, keyPrefix }),
      McpModule.forRootAsync({
        inject: [McpRedisBackends],
        useFactory: (backends: McpRedisBackends) => ({ name: 'shortcut-redis', version: '1.0.0', ...backends }),
      }),
    ]);
    for (const tool of [...tools(), ...jobs.tools()]) app.get(MCPServer).addTool(tool);
    try {
      const before = (await redis.keys(`${keyPrefix}*`)).sort();
      expect((await call(app, 'add', { a: 2, b: 3 })).result).toMatchObject({ resultType: 'complete' });
      expect((await redis.keys(`${keyPrefix}*`)).sort()).toEqual(before);

      const { result: created } = await call(app, 'long_job');
      expect(created).toMatchObject({ resultType: 'task' });
      expect(await redis.keys(`${keyPrefix}*`)).not.toEqual(before);
      jobs.done();
      expect(await waitForStatus(app, created!.taskId, 'completed')).toMatchObject({
        result: { content: [{ type: 'text', text: 'long job done' }] },
      });
    } finally {
      jobs.done();
      await app.close();
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});

describe('tasks: the shortcut over stdio', () => {
  it('answers a fast call on the line with its result, and a slow one with a task tasks/get follows', async () => {
    const kernel = new McpKernel({ name: 'shortcut-stdio', version: '1.0.0' });
    const jobs = new TaskJobs();
    for (const tool of [...tools(), ...jobs.tools()]) kernel.addTool(tool);
    const input = new PassThrough();
    const answers: Json[] = [];
    const served = new McpStdioDriver(kernel).serve(input, {
      write(data, callback) {
        for (const line of data.toString().split('\n').filter(Boolean)) answers.push(JSON.parse(line));
        setImmediate(() => callback?.());
        return true;
      },
    });
    const answerTo = async (id: number, method: string, params: Json): Promise<Json> => {
      input.write(`${JSON.stringify(mcpMessage(method, params, { id, clientCapabilities: WITH_TASKS }))}\n`);
      for (;;) {
        const found = answers.find((message) => message.id === id);
        if (found) return found.result;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    try {
      expect(await answerTo(1, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: '5' }],
      });
      const created = await answerTo(2, 'tools/call', { name: 'lookup', arguments: {} });
      expect(created).toMatchObject({ resultType: 'task' });
      let id = 3;
      let task = await answerTo(id++, 'tasks/get', { taskId: created.taskId });
      while (task.status === 'working') task = await answerTo(id++, 'tasks/get', { taskId: created.taskId });
      expect(task).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'found' }] } });
    } finally {
      input.end();
      await served;
      kernel.close();
    }
  });
});

describe('tasks: the caller giving up during a widened window', () => {
  it('stops the handler when the request is aborted, as in a plain call', async () => {
    const tasks = { immediateResultMs: 59_000 };
    const kernel = new McpKernel({ name: 'shortcut-abort', version: '1.0.0', tasks });
    let stopped!: (reason: unknown) => void;
    const stoppedBy = new Promise((resolve) => (stopped = resolve));
    kernel.addTool({
      name: 'waits',
      description: 'Waits until stopped',
      inputSchema: { type: 'object' },
      taskSupport: 'optional',
      handler: (_args, _answers, ctx: McpContext) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => {
            stopped(ctx.signal.reason);
            reject(ctx.signal.reason);
          }),
        ),
    });
    const request = new AbortController();
    const message = mcpMessage('tools/call', { name: 'waits', arguments: {} }, { clientCapabilities: WITH_TASKS });
    const answered = kernel.dispatch(message, { signal: request.signal });
    try {
      setImmediate(() => request.abort());
      const answer = await answered;
      expect('error' in answer || answer.result.isError === true).toBe(true);
      expect(String(await stoppedBy)).toMatch(/The call was cancelled/);
    } finally {
      kernel.close();
    }
  });
});

describe('tasks: a failing method answered by the shortcut', () => {
  it.each([
    ['a plain call', {}],
    ['the shortcut', WITH_TASKS],
  ])('tells the observers the exception and the id the client was given, in %s', async (_how, capabilities) => {
    const kernel = new McpKernel({ name: 'shortcut-failure', version: '1.0.0', observability: { redactErrors: true } });
    const boom = new Error('boom');
    kernel.addTool({
      name: 'fails',
      description: 'Throws',
      inputSchema: { type: 'object' },
      taskSupport: 'optional',
      handler: async () => {
        throw boom;
      },
    });
    const seen: McpCall[] = [];
    kernel.observe((call, response) => {
      seen.push(call);
      return response;
    });
    try {
      const answer = await kernel.dispatch(
        mcpMessage('tools/call', { name: 'fails', arguments: {} }, { clientCapabilities: capabilities }),
      );
      expect(answer).toMatchObject({ result: { resultType: 'complete', isError: true } });
      const text = String((answer as Json).result.content[0].text);
      expect(seen).toHaveLength(1);
      expect(seen[0].error).toBe(boom);
      expect(text).toContain(seen[0].correlationId);
    } finally {
      kernel.close();
    }
  });
});
