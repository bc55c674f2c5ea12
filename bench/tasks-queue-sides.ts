import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Queue, QueueEvents } from 'bullmq';
import { TASKS_EXTENSION } from '../src/protocol/extensions/tasks.js';
import { PROTOCOL_VERSION } from './fixtures.js';
import { installedBullmq, installedRedis } from './servers/installed-package.js';
import type { BenchRedis } from './tasks-queue-redis.js';
import { JOB_OPTIONS, taskKernel, untilListening, type QueueEngine } from './tasks-queue-setup.js';

/**
 * The two sides of a tasks-queue run: in the bench process, the web instance of each engine (a producer creating
 * tasks or jobs and learning their results), and the worker processes running them (`tasks-queue-worker.ts`).
 */

// Per worker process, as `McpTaskWorker` runs by default.
export const WORKER_CONCURRENCY = 16;
// A result that has not come by then will not: the run fails rather than hang.
const RESULT_WAIT_MS = 60_000;

/** A producer: creates one task (or job) and learns its result, for one engine. */
export interface Producer {
  /** Creates a task; resolves once the creation has been answered, with the task's checked result to come. */
  create(): Promise<{ done: Promise<void> }>;
  close(): Promise<void>;
}

/** Results that arrive before their creation was answered are kept until it is. */
class Arrivals {
  private readonly waiting = new Map<string, (value: unknown) => void>();
  private readonly early = new Map<string, unknown>();

  arrived(id: string, value: unknown): void {
    const resolve = this.waiting.get(id);
    if (!resolve) return void this.early.set(id, value);
    this.waiting.delete(id);
    resolve(value);
  }

  of(id: string): Promise<unknown> {
    if (this.early.has(id)) {
      const value = this.early.get(id);
      this.early.delete(id);
      return Promise.resolve(value);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no result for ${id} within ${RESULT_WAIT_MS} ms`)),
        RESULT_WAIT_MS,
      );
      this.waiting.set(id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
  }
}

export async function bareProducer(redis: BenchRedis, queueName: string): Promise<Producer> {
  const { hostname, port } = new URL(redis.url);
  const connection = { host: hostname, port: Number(port) };
  const queue = new Queue(queueName, { connection });
  // From the stream's start (each run starts from an empty Redis): a reader from '$' misses the events of jobs
  // done before its first read.
  const events = new QueueEvents(queueName, { connection, lastEventId: '0-0' });
  const arrivals = new Arrivals();
  events.on('completed', ({ jobId, returnvalue }) => arrivals.arrived(jobId, returnvalue));
  events.on('failed', ({ jobId, failedReason }) => arrivals.arrived(jobId, new Error(failedReason)));
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  return {
    async create() {
      const job = await queue.add('add', { a: 2, b: 3 }, JOB_OPTIONS);
      const done = arrivals.of(job.id!).then((value) => {
        if (Number(value) !== 5) throw new Error(`bare job answered ${String(value)}`);
      });
      return { done };
    },
    async close() {
      await events.close();
      await queue.close();
    },
  };
}

function callMessage() {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
  };
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 }, _meta } };
}

export async function mcpProducer(redis: BenchRedis, queueName: string, secret: string): Promise<Producer> {
  const [{ McpTaskQueue }, { McpRedisBackends, McpRedisConnections }] = await Promise.all([
    installedBullmq(),
    installedRedis(),
  ]);
  const { hostname, port } = new URL(redis.url);
  const queue = new Queue(queueName, { connection: { host: hostname, port: Number(port) } });
  const connections = McpRedisConnections.open({ url: redis.url });
  const backends = new McpRedisBackends(connections);
  const kernel = await taskKernel(backends, secret, new McpTaskQueue(queue));
  const arrivals = new Arrivals();
  // What a listen stream naming the task would send its owner: the task's terminal state, result included.
  const unsubscribe = kernel.subscribeEvents((event) => {
    if (event.type !== 'tasks/status') return;
    const { taskId, status } = event.task;
    if (status === 'completed' || status === 'failed' || status === 'cancelled') arrivals.arrived(taskId, event.task);
  });
  await Promise.all([queue.waitUntilReady(), untilListening(backends)]);
  return {
    async create() {
      const created = (await kernel.handleRequest(callMessage())) as { result?: { taskId?: string } };
      const taskId = created?.result?.taskId;
      if (!taskId) throw new Error(`no task: ${JSON.stringify(created)}`);
      const done = arrivals.of(taskId).then((task) => {
        const text = (task as { result?: { content?: Array<{ text?: string }> } }).result?.content?.[0]?.text;
        if (text !== '5') throw new Error(`task ended ${JSON.stringify(task)}`);
      });
      return { done };
    },
    async close() {
      unsubscribe();
      kernel.close();
      await backends.close();
      await connections.close();
      await queue.close();
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

export async function startWorker(engine: QueueEngine, url: string, queueName: string, secret: string) {
  const child = fork(
    fileURLToPath(new URL('./tasks-queue-worker.js', import.meta.url)),
    [engine, url, queueName, secret, String(WORKER_CONCURRENCY)],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`a ${engine} worker exited during start-up (code ${code})`)));
  });
  const worker: WorkerProcess = {
    child,
    cpu: () =>
      new Promise((resolve) => {
        child.once('message', (usage) =>
          resolve(((usage as NodeJS.CpuUsage).user + (usage as NodeJS.CpuUsage).system) / 1e3),
        );
        child.send('usage');
      }),
    // Once gone, it stays gone: a session's end stops again a worker its work stopped.
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
  return worker;
}
