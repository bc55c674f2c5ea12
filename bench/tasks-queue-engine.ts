import { randomBytes } from 'node:crypto';
import { installedCore, installedRedis } from './servers/installed-package.js';
import { measureKernelTasks, type TaskRoundTrip } from './tasks.js';
import { BenchRedis, redisWindow, totalCommands, type RedisWindow } from './tasks-queue-redis.js';
import type { QueueEngine } from './tasks-queue-setup.js';
import {
  bareProducer,
  mcpProducer,
  startWorker,
  WORKER_CONCURRENCY,
  type Producer,
  type WorkerProcess,
} from './tasks-queue-sides.js';

/**
 * Tasks on BullMQ against bare BullMQ doing the same work, in one run on a `redis-server` of the bench's own:
 * the bench process is the web instance (MCP: a kernel on the Redis backends with `tasks.queue`, creating each
 * task with `tools/call` and learning its result from the task status event its listen streams carry; bare: a
 * `Queue` adding the job and a `QueueEvents` reporting its return value), and the workers are processes of
 * their own (`tasks-queue-worker.ts`), the built package's (`servers/installed-package.ts`). The latency from
 * creation to result one task at a time, the engines alternating; for each engine, the Redis commands (`INFO commandstats`, scripts' commands under their own names) and CPU (the bench,
 * the workers, Redis) per task, the throughput of a batch at 1, 2 and 4 workers with the rate of its creation,
 * and the rate of creating a batch with no worker running beside the rate of one worker finishing it.
 */
export interface EngineFigures {
  /** Median milliseconds from creation to result, one task at a time, alternating with the other engine's. */
  latencyMs: number;
  /** Redis commands per task, one at a time; and by name. */
  commands: number;
  commandsByName: Map<string, number>;
  /** Per task in the 1-worker batch: commands, and CPU µs of the web process, the workers and Redis. */
  batchCommands: number;
  webCpuUs: number;
  workerCpuUs: number;
  redisCpuUs: number;
  /** The web process's live heap (MiB, after a full GC when exposed) before and after the 1-worker batch. */
  webHeapMb: [number, number];
  /**
   * Per worker count: tasks per second over the batch, the rate the web process created them meanwhile, and
   * the share of the batch's wall time the creation took.
   */
  throughput: Array<{ workers: number; perSecond: number; createdPerSecond: number; creationShare: number }>;
  /**
   * Each side alone, so neither competes with the other for the machine: the rate the web process creates a
   * batch with no worker running, then the rate one worker started on the full queue finishes it.
   */
  apart: { createdPerSecond: number; finishedPerSecond: number };
}

export interface TasksQueueFigures {
  bare: EngineFigures;
  mcp: EngineFigures;
  /** A task round trip in process (create, then `tasks/get` until completed) beside a plain call, by store. */
  kernel: { memory: TaskRoundTrip; redis: TaskRoundTrip };
  /** The batch size and sequential count the figures were taken with. */
  batch: number;
  sequential: number;
}

const WORKER_COUNTS = [1, 2, 4];
// Creations in flight from the web process during a batch.
const CREATING = 64;
/** Nothing is kept per task in the web process: its live heap must not grow with the tasks it created. */
function liveHeapMb(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e3;
};

/** Creates `count` tasks, `CREATING` at a time; resolves once all are created, with their results to come. */
async function create(producer: Producer, count: number): Promise<Array<Promise<void>>> {
  const results: Array<Promise<void>> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATING }, async () => {
      while (next < count) {
        next++;
        results.push((await producer.create()).done);
      }
    }),
  );
  return results;
}

/** Creates `count` tasks and waits for their results; resolves with the creation's and the whole batch's ms. */
async function batch(producer: Producer, count: number): Promise<{ creationMs: number; totalMs: number }> {
  const started = performance.now();
  const results = await create(producer, count);
  const creationMs = performance.now() - started;
  await Promise.all(results);
  return { creationMs, totalMs: performance.now() - started };
}

interface Run {
  redis: BenchRedis;
  secret: string;
  sequential: number;
  batch: number;
}

/** One engine's web process (a producer) and `workers` worker processes on its queue, both sides warmed. */
async function openSession(run: Run, engine: QueueEngine, workers: number) {
  const { redis, secret, batch: size } = run;
  const queueName = `bench-${engine}`;
  const pool = await Promise.all(
    Array.from({ length: workers }, () => startWorker(engine, redis.url, queueName, secret)),
  );
  const producer =
    engine === 'bare' ? await bareProducer(redis, queueName) : await mcpProducer(redis, queueName, secret);
  // Warm both sides (the JIT, the scripts loaded into Redis) before anything is counted.
  await batch(producer, Math.min(size, 64));
  return {
    producer,
    pool,
    async close() {
      await producer.close();
      await Promise.all(pool.map((worker) => worker.stop()));
    },
  };
}

/** Milliseconds from creation to result of one task (or job). */
async function oneTask(producer: Producer): Promise<number> {
  const started = performance.now();
  await (
    await producer.create()
  ).done;
  return performance.now() - started;
}

/**
 * The latency from creation to result, one task at a time, of both engines at once (each its own queue and
 * worker on the one Redis), alternating: a busy neighbour on a shared machine then slows both alike, where a run
 * of one engine after the other would give each the load of its own moment.
 */
async function measureLatency(run: Run): Promise<{ bare: number; mcp: number }> {
  await run.redis.flush();
  const bare = await openSession(run, 'bare', 1);
  const mcp = await openSession(run, 'mcp', 1);
  try {
    const latencies = { bare: [] as number[], mcp: [] as number[] };
    for (let i = 0; i < run.sequential; i++) {
      // Each goes first every other time, so neither always follows the other's tail work.
      const order = i % 2 ? [bare, mcp] : [mcp, bare];
      for (const side of order) latencies[side === bare ? 'bare' : 'mcp'].push(await oneTask(side.producer));
    }
    return { bare: median(latencies.bare), mcp: median(latencies.mcp) };
  } finally {
    await Promise.all([bare.close(), mcp.close()]);
  }
}

/** One engine's figures but the latency; each measured part starts from an empty Redis and fresh processes. */
async function measureEngine(run: Run, engine: QueueEngine): Promise<EngineFigures> {
  const { redis, secret, sequential, batch: size } = run;
  const figures: EngineFigures = {
    latencyMs: 0,
    commands: 0,
    commandsByName: new Map(),
    batchCommands: 0,
    webCpuUs: 0,
    workerCpuUs: 0,
    redisCpuUs: 0,
    webHeapMb: [0, 0],
    throughput: [],
    apart: { createdPerSecond: 0, finishedPerSecond: 0 },
  };
  const session = async <T>(workers: number, work: (producer: Producer, pool: WorkerProcess[]) => Promise<T>) => {
    await redis.flush();
    const opened = await openSession(run, engine, workers);
    try {
      return await work(opened.producer, opened.pool);
    } finally {
      await opened.close();
    }
  };

  await session(1, async (producer) => {
    const close = await redisWindow(redis);
    for (let i = 0; i < sequential; i++) await oneTask(producer);
    const window = await close();
    figures.commands = totalCommands(window) / sequential;
    figures.commandsByName = perTask(window, sequential);
  });

  for (const workers of WORKER_COUNTS) {
    await session(workers, async (producer, pool) => {
      const heapBefore = liveHeapMb();
      const close = await redisWindow(redis);
      const web = cpuMs();
      const workerCpu = await Promise.all(pool.map((worker) => worker.cpu()));
      const { creationMs, totalMs } = await batch(producer, size);
      const webSpent = cpuMs() - web;
      const workerSpent = (await Promise.all(pool.map((worker) => worker.cpu()))).reduce(
        (sum, ms, i) => sum + ms - workerCpu[i],
        0,
      );
      const window: RedisWindow = await close();
      figures.throughput.push({
        workers,
        perSecond: (size / totalMs) * 1000,
        createdPerSecond: (size / creationMs) * 1000,
        creationShare: creationMs / totalMs,
      });
      if (workers !== 1) return;
      figures.webHeapMb = [heapBefore, liveHeapMb()];
      figures.batchCommands = totalCommands(window) / size;
      figures.webCpuUs = (webSpent / size) * 1000;
      figures.workerCpuUs = (workerSpent / size) * 1000;
      figures.redisCpuUs = (window.cpuSeconds / size) * 1e6;
    });
  }

  await session(1, async (producer, [warmed]) => {
    // The warm-up needed a worker; the queue is empty again once it has gone.
    await warmed.stop();
    const started = performance.now();
    const results = await create(producer, size);
    const created = performance.now();
    const worker = await startWorker(engine, redis.url, `bench-${engine}`, secret);
    const draining = performance.now();
    await Promise.all(results);
    const finished = performance.now();
    await worker.stop();
    figures.apart = {
      createdPerSecond: (size / (created - started)) * 1000,
      finishedPerSecond: (size / (finished - draining)) * 1000,
    };
  });
  return figures;
}

function perTask(window: RedisWindow, tasks: number): Map<string, number> {
  return new Map([...window.commands].map(([name, calls]) => [name, calls / tasks]));
}

/** The in-process round trip on the in-memory store and on the Redis store, each beside the plain call. */
async function measureKernelRows(smoke: boolean, redis: BenchRedis): Promise<TasksQueueFigures['kernel']> {
  const [{ McpKernel }, { McpRedisConnections, RedisTaskStore }] = await Promise.all([
    installedCore(),
    installedRedis(),
  ]);
  const memory = await measureKernelTasks(smoke, McpKernel);
  const connections = McpRedisConnections.open({ url: redis.url });
  const store = new RedisTaskStore(connections);
  try {
    const deadline = Date.now() + 10_000;
    while (!store.listening && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return { memory, redis: await measureKernelTasks(smoke, McpKernel, store) };
  } finally {
    store.close();
    await connections.close();
  }
}

/** Both engines, bare first, on one private Redis. */
export async function measureTasksQueue(smoke: boolean): Promise<TasksQueueFigures> {
  const sequential = smoke ? 20 : Number(process.env.BENCH_TASKS ?? 300);
  const size = smoke ? 100 : Number(process.env.BENCH_TASKS_BATCH ?? 1_000);
  const redis = await BenchRedis.start();
  // Web instances and workers verify each other's queued calls under one shared secret.
  const secret = randomBytes(32).toString('hex');
  try {
    const run = { redis, secret, sequential, batch: size };
    const bare = await measureEngine(run, 'bare');
    const mcp = await measureEngine(run, 'mcp');
    ({ bare: bare.latencyMs, mcp: mcp.latencyMs } = await measureLatency(run));
    await redis.flush();
    return { bare, mcp, kernel: await measureKernelRows(smoke, redis), batch: size, sequential };
  } finally {
    await redis.stop();
  }
}

/** The section's table: each MCP figure beside bare BullMQ's, with the ratio and its goal. */
export function printTasksQueue(f: TasksQueueFigures, fmt: (n: number, digits?: number) => string): void {
  const { bare, mcp } = f;
  console.log(
    `\nTasks on BullMQ vs bare BullMQ doing the same work (a redis-server of the bench's own; the bench process ` +
      `creates, workers in processes of their own, ${WORKER_CONCURRENCY} jobs at once each; latency one at a time ` +
      `over ${f.sequential}, batches of ${fmt(f.batch)} with ${CREATING} creations in flight):\n`,
  );
  console.log('| figure | MCP task | bare BullMQ job | ratio | goal |');
  console.log('|---|---:|---:|---:|---|');
  const row = (label: string, mine: number, theirs: number, digits: number, goal?: number, higher = false) => {
    const ratio = mine / theirs;
    const verdict =
      goal === undefined
        ? 'no goal'
        : `${higher ? '≥' : '≤'} ${goal} (${(higher ? ratio >= goal : ratio <= goal) ? 'met' : 'not met'})`;
    console.log(`| ${label} | ${fmt(mine, digits)} | ${fmt(theirs, digits)} | ${fmt(ratio, 2)} | ${verdict} |`);
  };
  row('creation → result, ms (median)', mcp.latencyMs, bare.latencyMs, 2, 1.5);
  row('Redis commands per task, one at a time', mcp.commands, bare.commands, 1, 2);
  row(`Redis commands per task, batch of ${fmt(f.batch)}, 1 worker`, mcp.batchCommands, bare.batchCommands, 1, 2);
  row('CPU µs per task: web + workers', mcp.webCpuUs + mcp.workerCpuUs, bare.webCpuUs + bare.workerCpuUs, 0);
  row('CPU µs per task: web process', mcp.webCpuUs, bare.webCpuUs, 0);
  row('CPU µs per task: workers', mcp.workerCpuUs, bare.workerCpuUs, 0);
  row('CPU µs per task: Redis', mcp.redisCpuUs, bare.redisCpuUs, 0);
  for (const [i, { workers, perSecond, createdPerSecond }] of mcp.throughput.entries()) {
    const them = bare.throughput[i];
    const count = `${workers} worker${workers > 1 ? 's' : ''}`;
    row(`tasks/s, ${count}`, perSecond, them.perSecond, 0);
    row(`created/s meanwhile by the web process, ${count}`, createdPerSecond, them.createdPerSecond, 0);
  }
  // Which side limits throughput here: the web process creating, or the workers finishing.
  row('created/s by the web process, no worker running', mcp.apart.createdPerSecond, bare.apart.createdPerSecond, 0);
  row('finished/s by 1 worker, its queue full', mcp.apart.finishedPerSecond, bare.apart.finishedPerSecond, 0);
  const shares = (e: EngineFigures) =>
    e.throughput.map((t) => `${t.workers}: ${fmt(t.creationShare * 100)} %`).join(', ');
  const { memory, redis } = f.kernel;
  // In process, beside the plain call of the same tool (the bare column).
  const versusPlain = (label: string, mine: number, plain: number, goal?: number) =>
    console.log(
      `| ${label}, µs | ${fmt(mine, 2)} | plain call ${fmt(plain, 2)} | ${fmt(mine / plain, 2)} | ` +
        `${goal === undefined ? 'no goal' : `≤ ${goal} (${mine / plain <= goal ? 'met' : 'not met'})`} |`,
    );
  for (const [store, t] of [
    ['in-memory', memory],
    ['Redis', redis],
  ] as const) {
    // Two requests by design: the goal of a task within 1.5× a plain call is the shortcut's, on the in-memory store.
    versusPlain(`in process, ${store} store: task round trip (${fmt(t.gets, 2)} gets)`, t.task, t.plain);
    const goal = t === memory ? 1.5 : undefined;
    versusPlain(
      `in process, ${store} store: answered in place of a task (immediate-result shortcut)`,
      t.shortcut,
      t.plain,
      goal,
    );
  }
  const heap = (e: EngineFigures) => `${fmt(e.webHeapMb[0], 1)} → ${fmt(e.webHeapMb[1], 1)} MiB`;
  console.log(`\nWeb process live heap around the 1-worker batch: MCP ${heap(mcp)}; bare ${heap(bare)}`);
  console.log(`Share of a batch's wall time spent creating, by workers: MCP ${shares(mcp)}; bare ${shares(bare)}`);
  const limit = (e: EngineFigures) =>
    e.apart.createdPerSecond < e.apart.finishedPerSecond ? 'the web process creating' : 'the worker finishing';
  console.log(`Each side alone, the slower (what limits throughput here): MCP ${limit(mcp)}; bare ${limit(bare)}`);
  const byName = (e: EngineFigures) =>
    [...e.commandsByName]
      .sort((a, b) => b[1] - a[1])
      .map(([name, calls]) => `${name} ${fmt(calls, 1)}`)
      .join(', ');
  console.log(`Redis commands per task by name, one at a time: MCP ${byName(mcp)}; bare ${byName(bare)}`);
}
