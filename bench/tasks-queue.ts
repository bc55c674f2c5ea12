import { randomBytes, randomUUID } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { McpKernel, type QueuedTask } from '../src/core/index.js';
import { TASKS_EXTENSION } from '../src/protocol/extensions/tasks.js';
import type { TaskOptions } from '../src/server/tasks/task-options.js';
import { McpTaskQueue } from '../src/bullmq/index.js';
import { McpRedisConnections, RedisTaskStore } from '../src/redis/index.js';
import { PROTOCOL_VERSION } from './fixtures.js';

/**
 * `npm run bench:tasks-queue`: a task's overhead on a BullMQ queue against the in-process runner, both on the
 * machine's Redis task store, in one process (the worker's kernel beside the web's, so only the queue differs):
 * the time from `tools/call` to the first `tasks/get` that shows the task completed, one task at a time; short
 * tasks per second with 64 in flight; and the heap after many tasks (memory must stay flat: jobs and tasks are
 * bounded by removal and TTL, nothing accumulates per task in the process).
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SEQUENTIAL = Number(process.env.BENCH_TASKS ?? 200);
const CONCURRENT = 64;
const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);

function message(method: string, params: Record<string, unknown>) {
  const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  return { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } };
}

// Web and worker kernels verify each other's queued calls under one shared secret.
const secret = randomBytes(32).toString('hex');

function kernel(tasks: TaskOptions): McpKernel {
  const k = new McpKernel({
    name: 'bench',
    version: '1.0.0',
    requestState: { secret },
    tasks: { maxTasksPerCaller: 100_000, ...tasks },
  });
  k.addTool({
    name: 'add',
    description: 'Adds',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    taskSupport: 'required',
    handler: (args: Record<string, unknown>) => Number(args.a) + Number(args.b),
  });
  return k;
}

/** Creates a task and polls until it is completed; resolves with the milliseconds it took. */
async function roundTrip(web: McpKernel): Promise<number> {
  const started = performance.now();
  const created = (await web.handleRequest(message('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))) as any;
  if (!created.result) throw new Error(`no task: ${JSON.stringify(created)}`);
  const taskId = created.result.taskId;
  for (;;) {
    const task = ((await web.handleRequest(message('tasks/get', { taskId }))) as any).result;
    if (task.status === 'completed') {
      if (task.result.content[0].text !== '5') throw new Error(`unexpected result ${JSON.stringify(task)}`);
      return performance.now() - started;
    }
    if (task.status !== 'working') throw new Error(`unexpected task ${JSON.stringify(task)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(web: McpKernel) {
  const latencies: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) latencies.push(await roundTrip(web));
  const heaps: number[] = [];
  let tasks = 0;
  let elapsed = 0;
  for (let batch = 0; batch < BATCHES; batch++) {
    const started = performance.now();
    for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: CONCURRENT }, () => roundTrip(web)));
    elapsed += performance.now() - started;
    tasks += 4 * CONCURRENT;
    globalThis.gc?.();
    heaps.push(process.memoryUsage().heapUsed / 2 ** 20);
  }
  return { medianMs: median(latencies), perSecond: (tasks / elapsed) * 1000, heaps };
}

async function main(): Promise<void> {
  const keyPrefix = `bench-tasks-queue:${randomUUID()}:`;
  const connections = McpRedisConnections.open({ url: REDIS_URL, keyPrefix });
  const store = new RedisTaskStore(connections);
  const { hostname, port } = new URL(REDIS_URL);
  const connection = { host: hostname, port: Number(port || 6379) };
  const queue = new Queue<QueuedTask>('bench', { connection, prefix: `${keyPrefix}bull` });
  const workerKernel = kernel({ store });
  const worker = new Worker<QueuedTask>(
    'bench',
    (job: Job<QueuedTask>) => workerKernel.runQueuedTask(job.data, job.stalledCounter),
    { connection, prefix: `${keyPrefix}bull`, concurrency: CONCURRENT },
  );
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
  try {
    const inProcess = await measure(kernel({ store }));
    const queued = await measure(kernel({ store, queue: new McpTaskQueue(queue) }));
    const row = (name: string, m: typeof inProcess) =>
      `| ${name} | ${m.medianMs.toFixed(2)} ms | ${m.perSecond.toFixed(0)} | ${m.heaps[0].toFixed(1)} → ${m.heaps.at(-1)!.toFixed(1)} MiB |`;
    console.log(
      '| runner | create → completed (median, one at a time) | short tasks/s (64 in flight) | heap after each batch, first → last |',
    );
    console.log('| --- | --- | --- | --- |');
    console.log(row('in process (Redis task store)', inProcess));
    console.log(row('BullMQ queue, worker in the same process', queued));
    console.log(
      `queue / in process: latency ×${(queued.medianMs / inProcess.medianMs).toFixed(2)}, throughput ×${(queued.perSecond / inProcess.perSecond).toFixed(2)}`,
    );
  } finally {
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    const keys = await connections.commands.keys(`${keyPrefix}*`);
    if (keys.length > 0) await connections.commands.del(...keys);
    store.close();
    await connections.close();
  }
}

void main();
