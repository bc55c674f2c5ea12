import { jest } from '@jest/globals';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { McpError } from '../../src/protocol/mcp-error.js';
import type { InputRequest, InputResponse } from '../../src/protocol/mcp-types.js';
import type { DetailedTask } from '../../src/protocol/extensions/tasks.js';
import type { TaskRun } from '../../src/server/task-run.js';
import { taskOwner } from '../../src/server/tasks/task-owner.js';
import { TaskRunner } from '../../src/server/tasks/task-runner.js';
import type { TaskOutcome } from '../../src/server/tasks/task-records.js';
import {
  INSTANCE_LOST,
  InMemoryTaskStore,
  type StoredTask,
  type TaskSignal,
} from '../../src/server/tasks/task-store.js';

/** The in-memory store, counting the subscriptions still held. */
class CountingStore extends InMemoryTaskStore {
  listening = 0;
  override async subscribe(
    server: string,
    taskId: string,
    listener: (signal: TaskSignal) => void,
  ): Promise<() => Promise<void>> {
    const unsubscribe = await super.subscribe(server, taskId, listener);
    this.listening++;
    return async () => {
      this.listening--;
      await unsubscribe();
    };
  }
}

const ELICIT: InputRequest = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Sure?',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  },
};
const YES: InputResponse = { action: 'accept', content: { ok: true } };
const acceptAll = () => true;

/** A piece of work the test finishes by hand, seeing the run it was given. */
function controlled() {
  let finish!: (outcome: TaskOutcome) => void;
  let run!: TaskRun;
  const work = (given: TaskRun) => {
    run = given;
    return new Promise<TaskOutcome>((resolve) => (finish = resolve));
  };
  return { work, finish: (outcome: TaskOutcome) => finish(outcome), run: () => run };
}

/** Lets queued store writes (promise chains) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function statusOf(runner: TaskRunner, taskId: string, owner = 'alice'): Promise<DetailedTask> {
  await settle();
  return runner.get(taskId, owner);
}

function expectInvalidParams(promise: Promise<unknown>) {
  return expect(promise).rejects.toMatchObject({
    code: ErrorCode.InvalidParams,
    message: 'Failed to retrieve task: Task not found',
  });
}

describe('TaskRunner', () => {
  let published: Array<{ owner: string; task: DetailedTask }>;
  let runner: TaskRunner;

  beforeEach(() => {
    published = [];
    runner = new TaskRunner('srv', { pollIntervalMs: 200 }, (owner, task) => published.push({ owner, task }));
  });

  it('answers with a flat CreateTaskResult that tasks/get finds at once', async () => {
    const job = controlled();
    const created = await runner.start('alice', {}, job.work);
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 300_000, pollIntervalMs: 200 });
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(created).not.toHaveProperty('result');
    expect(created).not.toHaveProperty('inputRequests');
    expect(created.taskId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await runner.get(created.taskId, 'alice')).toMatchObject({ taskId: created.taskId, status: 'working' });
    job.finish({ result: { content: [] } });
  });

  it('draws a different, unguessable id for every task', async () => {
    const ids = new Set<unknown>();
    for (let i = 0; i < 50; i++)
      ids.add((await runner.start('alice', {}, async () => ({ result: { content: [] } }))).taskId);
    expect(ids.size).toBe(50);
  });

  it('ends completed with the result, and tells listeners each state it reaches', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    job.finish({ result: { content: [{ type: 'text', text: 'done' }] } });
    const task = await statusOf(runner, taskId);
    expect(task).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } });
    expect(task).not.toHaveProperty('error');
    expect(published).toEqual([{ owner: taskOwner('srv', 'alice'), task }]);
  });

  it('ends failed with the JSON-RPC error and no result', async () => {
    const { taskId } = (await runner.start('alice', {}, async () => ({
      error: { code: -32603, message: 'boom' },
    }))) as { taskId: string };
    const task = await statusOf(runner, taskId);
    expect(task).toMatchObject({ status: 'failed', error: { code: -32603, message: 'boom' }, statusMessage: 'boom' });
    expect(task).not.toHaveProperty('result');
  });

  it('ends failed when the work itself throws, without leaking what it threw', async () => {
    const { taskId } = (await runner.start('alice', {}, async () => {
      throw new Error('secret detail');
    })) as { taskId: string };
    expect(await statusOf(runner, taskId)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'Internal error' },
    });
  });

  it('cancels a running task: cancelled at once, its handler signalled, and its late result ignored', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    await runner.cancel(taskId, 'alice');
    expect(await runner.get(taskId, 'alice')).toMatchObject({ status: 'cancelled' });
    expect(job.run().signal.aborted).toBe(true);
    job.finish({ result: { content: [{ type: 'text', text: 'too late' }] } });
    const task = await statusOf(runner, taskId);
    expect(task.status).toBe('cancelled');
    expect(task).not.toHaveProperty('result');
  });

  it('lets go of a cancelled task whose handler ignores its signal and never settles', async () => {
    const store = new CountingStore();
    const stubborn = new TaskRunner('srv', { store }, () => undefined);
    const { taskId } = (await stubborn.start('alice', {}, () => new Promise<never>(() => undefined))) as {
      taskId: string;
    };
    expect(store.listening).toBe(1);
    await stubborn.cancel(taskId, 'alice');
    await settle();
    expect(store.listening).toBe(0);
    expect(await stubborn.get(taskId, 'alice')).toMatchObject({ status: 'cancelled' });
  });

  it('lets go of a task once its handler settles', async () => {
    const store = new CountingStore();
    const quick = new TaskRunner('srv', { store }, () => undefined);
    const { taskId } = (await quick.start('alice', {}, async () => ({ result: { content: [] } }))) as {
      taskId: string;
    };
    await settle();
    expect(store.listening).toBe(0);
    expect((await quick.get(taskId, 'alice')).status).toBe('completed');
  });

  it('logs a failed store write through its logger, and the task keeps its last stored state', async () => {
    class FailingWrites extends InMemoryTaskStore {
      override async update(): Promise<undefined> {
        throw new Error('store down');
      }
    }
    const logged: Array<[string, unknown]> = [];
    const logger = {
      error: (message: string, error?: unknown) => logged.push([message, error]),
      warn: () => undefined,
    };
    const failing = new TaskRunner('srv', { store: new FailingWrites() }, () => undefined, logger);
    const { taskId } = (await failing.start('alice', {}, async () => ({ result: { content: [] } }))) as {
      taskId: string;
    };
    await settle();
    expect(logged).toEqual([[`MCP tasks: a task store write for task ${taskId} failed`, expect.any(Error)]]);
    expect((await failing.get(taskId, 'alice')).status).toBe('working');
  });

  it('acks a cancel of a task that has ended, and leaves it as it was', async () => {
    const { taskId } = (await runner.start('alice', {}, async () => ({ result: { content: [] } }))) as {
      taskId: string;
    };
    await settle();
    await expect(runner.cancel(taskId, 'alice')).resolves.toBeUndefined();
    expect(await runner.get(taskId, 'alice')).toMatchObject({ status: 'completed' });
  });

  it('waits for input: input_required with the requests, answered one key at a time through update', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    const both = Promise.all([job.run().ask('first', ELICIT), job.run().ask('second', ELICIT)]);
    const asked = await statusOf(runner, taskId);
    expect(asked).toMatchObject({ status: 'input_required', inputRequests: { first: ELICIT, second: ELICIT } });

    await runner.update(taskId, 'alice', { first: YES, unknown: YES }, acceptAll);
    const partly = await runner.get(taskId, 'alice');
    expect(partly.status).toBe('input_required');
    expect(Object.keys(partly.inputRequests!)).toEqual(['second']);

    await runner.update(taskId, 'alice', { second: { action: 'decline' } }, acceptAll);
    expect(await both).toEqual([YES, { action: 'decline' }]);
    expect(await runner.get(taskId, 'alice')).toMatchObject({ status: 'working' });
    expect(job.run().answers).toEqual({ first: YES, second: { action: 'decline' } });
    job.finish({ result: { content: [] } });
    expect((await statusOf(runner, taskId)).status).toBe('completed');
  });

  it('ignores answers the check refuses, keeping the request outstanding', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    const answer = job.run().ask('first', ELICIT);
    await settle();
    await runner.update(
      taskId,
      'alice',
      { first: { action: 'accept', content: { ok: 'not a boolean' } } },
      (_request, value) => (value as InputResponse & { content?: { ok?: unknown } }).content?.ok === true,
    );
    expect(await runner.get(taskId, 'alice')).toMatchObject({
      status: 'input_required',
      inputRequests: { first: ELICIT },
    });
    await runner.update(taskId, 'alice', { first: YES }, acceptAll);
    await expect(answer).resolves.toEqual(YES);
  });

  it('resolves at once an ask for a key already answered in the task, never asking it again', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    const first = job.run().ask('k', ELICIT);
    await settle();
    await runner.update(taskId, 'alice', { k: YES }, acceptAll);
    await first;
    await expect(job.run().ask('k', ELICIT)).resolves.toEqual(YES);
    expect((await statusOf(runner, taskId)).status).toBe('working');
  });

  it('rejects the asks a cancelled task still waits on', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    const answer = job.run().ask('first', ELICIT);
    await settle();
    await runner.cancel(taskId, 'alice');
    await expect(answer).rejects.toThrow('The task was cancelled');
    expect(await runner.get(taskId, 'alice')).not.toHaveProperty('inputRequests');
  });

  it('turns progress into the status message', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    job.run().status('1/3');
    job.run().status('2/3');
    expect(await statusOf(runner, taskId)).toMatchObject({ status: 'working', statusMessage: '2/3' });
    job.finish({ result: { content: [] } });
  });

  it('answers -32602 to another caller, for every method, as if the task did not exist', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    await expectInvalidParams(runner.get(taskId, 'mallory'));
    await expectInvalidParams(runner.update(taskId, 'mallory', { x: YES }, acceptAll));
    await expectInvalidParams(runner.cancel(taskId, 'mallory'));
    await expectInvalidParams(runner.get('no-such-task', 'alice'));
    expect(job.run().signal.aborted).toBe(false);
    job.finish({ result: { content: [] } });
  });

  it('refuses a task id that is not a string', async () => {
    await expect(runner.get(42, 'alice')).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: 'Invalid params: "taskId" must be a string',
    });
  });

  it('refuses new tasks past the per-caller limit with a typed error', async () => {
    const bounded = new TaskRunner('srv', { maxTasksPerCaller: 1 }, () => undefined);
    await bounded.start('alice', {}, controlled().work);
    const refused = bounded.start('alice', {}, controlled().work);
    await expect(refused).rejects.toBeInstanceOf(McpError);
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.RateLimited, data: { reason: 'task_limit' } });
    await expect(bounded.start('bob', {}, async () => ({ result: { content: [] } }))).resolves.toMatchObject({
      resultType: 'task',
    });
  });

  it('forgets a task at its TTL and stops its handler', async () => {
    jest.useFakeTimers();
    try {
      const short = new TaskRunner('srv', { ttlMs: 1_000 }, () => undefined);
      const job = controlled();
      const { taskId } = (await short.start('alice', {}, job.work)) as { taskId: string };
      jest.advanceTimersByTime(999);
      expect(await short.get(taskId, 'alice')).toMatchObject({ status: 'working' });
      expect(job.run().signal.aborted).toBe(false);
      jest.advanceTimersByTime(1);
      expect(job.run().signal.aborted).toBe(true);
      expect((job.run().signal.reason as Error).message).toBe('The task expired');
      await expectInvalidParams(short.get(taskId, 'alice'));
    } finally {
      jest.useRealTimers();
    }
  });

  it('fails the tasks still running when it closes', async () => {
    const job = controlled();
    const { taskId } = (await runner.start('alice', {}, job.work)) as { taskId: string };
    runner.close();
    expect(job.run().signal.aborted).toBe(true);
    expect(await statusOf(runner, taskId)).toMatchObject({
      status: 'failed',
      error: { message: 'The server shut down before the task finished' },
    });
  });

  it('rejects options that would not bound anything', () => {
    expect(() => new TaskRunner('srv', { ttlMs: 0 }, () => undefined)).toThrow(
      'tasks.ttlMs must be a positive integer',
    );
    expect(() => new TaskRunner('srv', { ttlMs: 2 ** 31 }, () => undefined)).toThrow('tasks.ttlMs must be at most');
    expect(() => new TaskRunner('srv', { maxTasks: 1.5 }, () => undefined)).toThrow(
      'tasks.maxTasks must be a positive integer',
    );
  });

  it('rejects a lease too short to renew safely, or no whole number of milliseconds', () => {
    for (const leaseMs of [0, 999, 1_500.5, 2 ** 31, Number.NaN])
      expect(() => new TaskRunner('srv', { leaseMs }, () => undefined)).toThrow(
        `tasks.leaseMs must be an integer from 1000 to ${2 ** 31 - 1}`,
      );
    expect(() => new TaskRunner('srv', { leaseMs: 1_000 }, () => undefined)).not.toThrow();
  });

  describe('leases (fake timers: the clock and the heartbeat move together)', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    /** A store another instance shares, which this instance can lose contact with (its writes then fail). */
    class PartitionedStore extends InMemoryTaskStore {
      constructor(
        private readonly shared: InMemoryTaskStore,
        public cutOff = false,
      ) {
        super();
      }
      override create: InMemoryTaskStore['create'] = (...args) => this.shared.create(...args);
      override get: InMemoryTaskStore['get'] = (...args) => this.shared.get(...args);
      override subscribe: InMemoryTaskStore['subscribe'] = (...args) => this.shared.subscribe(...args);
      override update: InMemoryTaskStore['update'] = (...args) =>
        this.cutOff ? Promise.reject(new Error('store unreachable')) : this.shared.update(...args);
    }

    const stored = (store: InMemoryTaskStore, taskId: string): Promise<StoredTask | undefined> =>
      store.get('srv', taskId, taskOwner('srv', 'alice')!);

    it('keeps a healthy task running through many leases, renewing it a third of the way into each', async () => {
      const store = new InMemoryTaskStore();
      const leased = new TaskRunner('srv', { store, leaseMs: 1_000 }, () => undefined);
      const job = controlled();
      const { taskId } = (await leased.start('alice', {}, job.work)) as { taskId: string };
      const createdAt = Date.now();
      expect((await stored(store, taskId))!.leaseExpiresAt).toBe(createdAt + 1_000);
      for (let step = 1; step <= 20; step++) {
        await jest.advanceTimersByTimeAsync(500);
        expect((await leased.get(taskId, 'alice')).status).toBe('working');
      }
      // The last renewal, the 30th (one every 333 ms), holds it a lease beyond 9 990 ms.
      expect((await stored(store, taskId))!.leaseExpiresAt).toBe(createdAt + 9_990 + 1_000);
      expect(job.run().signal.aborted).toBe(false);
      job.finish({ result: { content: [] } });
      await jest.advanceTimersByTimeAsync(0);
      expect((await leased.get(taskId, 'alice')).status).toBe('completed');
      // Its expiry timer and heartbeat are gone with it.
      expect(jest.getTimerCount()).toBe(1); // the store's own drop of the record at its TTL
    });

    it('fails a task whose instance lost the store, and that instance cannot complete it when it is back', async () => {
      const shared = new InMemoryTaskStore();
      const lost = new PartitionedStore(shared);
      const logged: unknown[] = [];
      const a = new TaskRunner('srv', { store: lost, leaseMs: 3_000 }, () => undefined, {
        error: (message) => logged.push(message),
        warn: () => undefined,
      });
      const b = new TaskRunner('srv', { store: shared, leaseMs: 3_000 }, () => undefined);
      const job = controlled();
      const { taskId } = (await a.start('alice', {}, job.work)) as { taskId: string };
      await jest.advanceTimersByTimeAsync(2_000);
      lost.cutOff = true;
      await jest.advanceTimersByTimeAsync(2_999);
      expect((await b.get(taskId, 'alice')).status).toBe('working');
      await jest.advanceTimersByTimeAsync(1);
      const failed = await b.get(taskId, 'alice');
      expect(failed).toMatchObject({
        status: 'failed',
        statusMessage: INSTANCE_LOST,
        error: { code: ErrorCode.InternalError, message: INSTANCE_LOST },
      });
      expect(logged).toContain(`MCP tasks: renewing the lease of task ${taskId} failed`);
      // Back in contact: its next renewal finds the task failed and stops the handler, whose result is dropped.
      lost.cutOff = false;
      expect(job.run().signal.aborted).toBe(false);
      await jest.advanceTimersByTimeAsync(1_000);
      expect(job.run().signal.aborted).toBe(true);
      expect((job.run().signal.reason as Error).message).toMatch(/did not renew its lease in time/);
      job.finish({ result: { content: [{ type: 'text', text: 'late' }] } });
      await jest.advanceTimersByTimeAsync(0);
      expect(await a.get(taskId, 'alice')).toEqual(failed);
    });

    it('clears every heartbeat when it closes', async () => {
      const leased = new TaskRunner('srv', { leaseMs: 1_000 }, () => undefined);
      const before = jest.getTimerCount();
      for (let i = 0; i < 3; i++) await leased.start('alice', {}, controlled().work);
      expect(jest.getTimerCount()).toBe(before + 3 * 3); // each task: its expiry, its heartbeat, the store's drop
      leased.close();
      await jest.advanceTimersByTimeAsync(0);
      expect(jest.getTimerCount()).toBe(before + 3);
    });
  });

  describe('two runners sharing one store (two instances)', () => {
    it('lets the other instance read, answer and cancel a task this one runs', async () => {
      const store = new InMemoryTaskStore();
      const a = new TaskRunner('srv', { store }, () => undefined);
      const b = new TaskRunner('srv', { store }, () => undefined);
      const job = controlled();
      const { taskId } = (await a.start('alice', {}, job.work)) as { taskId: string };
      expect(await b.get(taskId, 'alice')).toMatchObject({ status: 'working' });

      const answer = job.run().ask('confirm', ELICIT);
      expect(await statusOf(b, taskId)).toMatchObject({ status: 'input_required' });
      await b.update(taskId, 'alice', { confirm: YES }, acceptAll);
      await expect(answer).resolves.toEqual(YES);

      await b.cancel(taskId, 'alice');
      expect(job.run().signal.aborted).toBe(true);
      expect(await a.get(taskId, 'alice')).toMatchObject({ status: 'cancelled' });
      await expectInvalidParams(b.get(taskId, 'mallory'));
    });
  });
});
