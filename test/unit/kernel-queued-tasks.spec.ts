import { McpConfigurationError, type McpContext } from '../../src/index.js';
import { InMemoryTaskStore, McpKernel, type QueuedTask, type TaskQueue } from '../../src/core/index.js';
import { TASKS_EXTENSION } from '../../src/protocol/extensions/tasks.js';
import { WORKER_LOST } from '../../src/server/tasks/task-queue.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} }, elicitation: { form: {} } };
const requestState = { secret: 'queued-tasks-secret-queued-tasks-secret' };
const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

function request(method: string, params: Record<string, unknown>) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
      },
    },
  };
}

async function answer(kernel: McpKernel, method: string, params: Record<string, unknown>) {
  return kernel.handleRequest(request(method, params)) as Promise<Record<string, any>>;
}

/** A queue that only records what it is given: the test plays the worker and runs each job itself. */
class RecordingQueue implements TaskQueue {
  readonly jobs: QueuedTask[] = [];
  refuse = false;

  async add(task: QueuedTask): Promise<void> {
    if (this.refuse) throw new Error('the queue is down');
    this.jobs.push(task);
  }
}

/** A web kernel and a worker kernel of one server, sharing the store and the queue, with the same tools. */
function fleet(workerSecret = requestState.secret, maxResultBytesPerCaller?: number) {
  const logged: string[] = [];
  const logger = { error: (message: string) => void logged.push(message), warn: () => undefined };
  const store = new InMemoryTaskStore();
  const queue = new RecordingQueue();
  const runs: string[] = [];
  const make = (secret = requestState.secret) => {
    const kernel = new McpKernel({
      name: 'q',
      version: '1.0.0',
      tasks: { store, queue, maxResultBytesPerCaller },
      logger,
      requestState: { secret },
    });
    kernel.addTool({
      name: 'echo',
      description: 'Echoes',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      taskSupport: 'required',
      handler: async (args: Record<string, unknown>) => {
        runs.push('echo');
        return `echo ${String(args.text)}`;
      },
    });
    kernel.addTool({
      name: 'retried',
      description: 'Safe to repeat',
      inputSchema: { type: 'object' },
      taskSupport: 'required',
      retry: 1,
      handler: async () => {
        runs.push('retried');
        return 'again';
      },
    });
    kernel.addTool({
      name: 'ask',
      description: 'Asks a name',
      inputSchema: { type: 'object' },
      taskSupport: 'required',
      handler: async (_args: unknown, _answers: unknown, ctx: McpContext) => {
        runs.push('ask');
        const given = await ctx.elicit('Name?', NAME_FORM, { key: 'name' });
        return `hello ${String(given.content?.name)}`;
      },
    });
    return kernel;
  };
  return { web: make(), worker: make(workerSecret), store, queue, runs, logged };
}

async function created(kernel: McpKernel, name: string, args: Record<string, unknown> = {}) {
  const response = await answer(kernel, 'tools/call', { name, arguments: args });
  expect(response.result).toMatchObject({ resultType: 'task', status: 'working' });
  return response.result.taskId as string;
}

async function task(kernel: McpKernel, taskId: string) {
  return (await answer(kernel, 'tasks/get', { taskId })).result;
}

describe('tasks on a queue (tasks.queue), web and worker kernels sharing a store', () => {
  it('stores the task and queues its first round without running the handler where the call arrived', async () => {
    const { web, worker, queue, runs } = fleet();
    const taskId = await created(web, 'echo', { text: 'hi' });
    expect(runs).toEqual([]);
    expect(queue.jobs).toEqual([{ server: 'q', taskId, owner: expect.any(String), tool: 'echo', round: 0 }]);
    await worker.runQueuedTask(queue.jobs[0]);
    expect(runs).toEqual(['echo']);
    expect(await task(web, taskId)).toMatchObject({ status: 'completed', result: { content: [{ text: 'echo hi' }] } });
  });

  it('ends a round its worker lost failed, without running it, unless the tool declares retry', async () => {
    const { web, worker, queue, runs } = fleet();
    const lost = await created(web, 'echo', { text: 'x' });
    await worker.runQueuedTask(queue.jobs[0], 1);
    expect(runs).toEqual([]);
    expect(await task(web, lost)).toMatchObject({ status: 'failed', error: { message: WORKER_LOST } });

    const retried = await created(web, 'retried');
    await worker.runQueuedTask(queue.jobs[1], 1);
    expect(await task(web, retried)).toMatchObject({ status: 'completed' });
    const exhausted = await created(web, 'retried');
    await worker.runQueuedTask(queue.jobs[2], 2);
    expect(await task(web, exhausted)).toMatchObject({ status: 'failed', statusMessage: WORKER_LOST });
    expect(runs).toEqual(['retried']);
  });

  it('ends a round at its question; the last answer queues the next round, which runs the handler again', async () => {
    const { web, worker, queue, runs } = fleet();
    const taskId = await created(web, 'ask');
    await worker.runQueuedTask(queue.jobs[0]);
    expect(await task(web, taskId)).toMatchObject({ status: 'input_required', inputRequests: { name: {} } });
    const given = { action: 'accept', content: { name: 'Ada' } };
    await answer(web, 'tasks/update', { taskId, inputResponses: { name: given } });
    expect(queue.jobs.map((job) => job.round)).toEqual([0, 1]);
    // The first round's job again (a duplicate) runs nothing: the task has moved on.
    await worker.runQueuedTask(queue.jobs[0]);
    expect(runs).toEqual(['ask']);
    await worker.runQueuedTask(queue.jobs[1]);
    expect(runs).toEqual(['ask', 'ask']);
    expect(await task(web, taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'hello Ada' }] },
    });
  });

  it('runs nothing for a task cancelled while its round waited in the queue', async () => {
    const { web, worker, queue, runs } = fleet();
    const taskId = await created(web, 'echo');
    await answer(web, 'tasks/cancel', { taskId });
    await worker.runQueuedTask(queue.jobs[0]);
    expect(runs).toEqual([]);
    expect((await task(web, taskId)).status).toBe('cancelled');
  });

  it('answers -32603 when the queue refuses the round, and ends the stored task failed', async () => {
    const { web, queue, logged } = fleet();
    queue.refuse = true;
    const response = await answer(web, 'tools/call', { name: 'echo', arguments: {} });
    expect(response.error).toMatchObject({ code: -32603, message: 'Internal error: the task could not be queued' });
    const taskId = /queueing a round of task (\S+) failed/.exec(logged.join('\n'))![1];
    expect(await task(web, taskId)).toMatchObject({ status: 'failed', statusMessage: response.error.message });
  });

  it('refuses to start with tasks.queue and no requestState.secret: no worker could verify a call', () => {
    const queue = new RecordingQueue();
    expect(() => new McpKernel({ name: 'q', version: '1.0.0', tasks: { queue } })).toThrow(McpConfigurationError);
    expect(() => new McpKernel({ name: 'q', version: '1.0.0', tasks: { queue } })).toThrow(
      /^tasks\.queue needs requestState\.secret: /,
    );
  });

  it('runs nothing on a worker whose requestState.secret is not the web instance’s, and says why', async () => {
    const { web, worker, queue, runs, logged } = fleet('another-secret-another-secret-another');
    const taskId = await created(web, 'echo', { text: 'hi' });
    await worker.runQueuedTask(queue.jobs[0]);
    expect(runs).toEqual([]);
    expect(await task(web, taskId)).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(logged.join('\n')).toMatch(`refused to run task ${taskId}: its stored call fails its MAC check`);
  });

  it('never signs again a call changed in the store: the round its answer queues is refused', async () => {
    const { web, worker, store, queue, runs } = fleet();
    const taskId = await created(web, 'ask');
    await worker.runQueuedTask(queue.jobs[0]);
    await store.update('q', taskId, (stored) => ({ ...stored, call: { ...stored.call!, tool: 'echo' } }));
    const given = { action: 'accept', content: { name: 'Ada' } };
    await answer(web, 'tasks/update', { taskId, inputResponses: { name: given } });
    await worker.runQueuedTask({ ...queue.jobs[1], tool: 'echo' });
    expect(runs).toEqual(['ask']);
    expect((await task(web, taskId)).status).toBe('failed');
  });

  it("refuses answers that would take the caller's queued calls past its byte share, with the task-limit error", async () => {
    const { web, worker, queue } = fleet(requestState.secret, 2_048);
    const taskId = await created(web, 'ask');
    await worker.runQueuedTask(queue.jobs[0]);
    const long = { action: 'accept', content: { name: 'x'.repeat(4_096) } };
    const refused = await answer(web, 'tasks/update', { taskId, inputResponses: { name: long } });
    expect(refused.error).toMatchObject({ code: -32023, data: { reason: 'task_limit' } });
    expect(refused.error.message).toMatch(/^Too many tasks: this caller's tasks would keep more than 2048 bytes/);
    expect(await task(web, taskId)).toMatchObject({ status: 'input_required' });
    const short = { action: 'accept', content: { name: 'Ada' } };
    expect((await answer(web, 'tasks/update', { taskId, inputResponses: { name: short } })).error).toBeUndefined();
    expect(queue.jobs.map((job) => job.round)).toEqual([0, 1]);
  });

  it('refuses a retry that is not a whole number from 0 to 100, or on a tool that is never a task', () => {
    const kernel = new McpKernel({ name: 'q', version: '1.0.0' });
    const tool = { description: 'd', inputSchema: { type: 'object' as const }, handler: () => 'x' };
    expect(() => kernel.addTool({ ...tool, name: 'a', retry: 1 })).toThrow(McpConfigurationError);
    expect(() => kernel.addTool({ ...tool, name: 'b', taskSupport: 'optional', retry: 101 })).toThrow(/retry/);
    expect(() => kernel.addTool({ ...tool, name: 'c', taskSupport: 'optional', retry: 0.5 })).toThrow(/retry/);
    expect(() => kernel.addTool({ ...tool, name: 'd', taskSupport: 'optional', retry: 3 })).not.toThrow();
  });
});
