import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { McpKernel } from '../src/core/index.js';
import { McpRedisConnections, RedisEventStore } from '../src/redis/index.js';
import { ADD_TOOL, PROTOCOL_VERSION } from './fixtures.js';

/**
 * What one event occurrence (SEP-3415) costs the server, in CPU time of this process per occurrence, next to
 * two baselines taken in the same run: a plain `tools/call` through the kernel, and an `EventEmitter` emit (what
 * the app pays to announce the event at all). Publish-to-poll is a `publishEvent` and the `events/poll` that
 * reads it; publish-to-stream is a `publishEvent` and the `notifications/events/event` an open `events/stream`
 * writes for it. Each in memory and on Redis Streams (`nestjs-mcp/redis`, when Redis answers at `REDIS_URL`).
 * Then the heap after publishing far past the retention: it stays flat once the log is full.
 */
export interface EventCosts {
  toolCallUs: number;
  emitUs: number;
  memory: { pollUs: number; streamUs: number };
  redis?: { pollUs: number; streamUs: number };
  /** Heap used (MiB, after a full collection) after each batch of occurrences beyond the retention. */
  heaps: number[];
}

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
};
const request = (method: string, params: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: META },
});

/** CPU microseconds per run of `work`, `runs` times in a row. */
async function cpuPer(runs: number, work: (i: number) => unknown): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < runs; i++) await work(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / runs;
}

function kernelWith(eventStore?: RedisEventStore): McpKernel {
  const kernel = new McpKernel({ name: 'bench-events', version: '1.0.0', listen: eventStore ? { eventStore } : {} });
  kernel.addTool({ ...ADD_TOOL, handler: ({ a, b }: { a: number; b: number }) => a + b });
  kernel.addEvent({ name: 'bench.tick', description: 'A tick', retention: { maxCount: 1_000 } });
  return kernel;
}

async function answer(kernel: McpKernel, body: ReturnType<typeof request>): Promise<Record<string, any>> {
  const response = await kernel.handleRequest(body);
  if (!response || !('result' in response)) throw new Error(`kernel answered ${JSON.stringify(response)}`);
  return response.result as Record<string, any>;
}

/** Publish, then poll from the last cursor: each poll must return exactly the occurrence just published. */
async function publishToPoll(kernel: McpKernel, runs: number): Promise<number> {
  let cursor = (await answer(kernel, request('events/poll', { name: 'bench.tick', cursor: null }))).cursor as string;
  return cpuPer(runs, async (n) => {
    await kernel.publishEvent('bench.tick', { n });
    const polled = await answer(kernel, request('events/poll', { name: 'bench.tick', cursor }));
    if (polled.events.length !== 1 || polled.events[0].data.n !== n)
      throw new Error(`poll read ${JSON.stringify(polled)}`);
    cursor = polled.cursor;
  });
}

/** An open stream, then `runs` publishes: the CPU time until the stream has written every one of them. */
async function publishToStream(kernel: McpKernel, runs: number): Promise<number> {
  const abort = new AbortController();
  let seen = 0;
  let wake: () => void = () => undefined;
  const active = new Promise<void>((resolve) => (wake = resolve));
  const notify = (message: { method: string }) => {
    if (message.method === 'notifications/events/active') wake();
    if (message.method === 'notifications/events/event' && ++seen === runs) wake();
  };
  const streaming = kernel.handleRequest(request('events/stream', { name: 'bench.tick', cursor: null }, 's'), {
    notify,
    signal: abort.signal,
  });
  await active;
  const all = new Promise<void>((resolve) => (wake = resolve));
  const start = process.cpuUsage();
  for (let n = 0; n < runs; n++) await kernel.publishEvent('bench.tick', { n });
  await all;
  const used = process.cpuUsage(start);
  abort.abort();
  await streaming;
  return (used.user + used.system) / runs;
}

function collect(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export async function measureEvents(smoke: boolean): Promise<EventCosts> {
  const runs = smoke ? 200 : 5_000;
  const memory = kernelWith();
  const emitter = new EventEmitter();
  emitter.on('bench.tick', () => undefined);
  // Warm each path once, then take the baselines and the figures interleaved in one run.
  await publishToPoll(memory, runs / 10);
  const toolCallUs = await cpuPer(runs, () =>
    answer(memory, request('tools/call', { name: ADD_TOOL.name, arguments: { a: 2, b: 3 } })),
  );
  const emitUs = await cpuPer(runs, (n) => emitter.emit('bench.tick', { n }));
  const figures: EventCosts = {
    toolCallUs,
    emitUs,
    memory: { pollUs: await publishToPoll(memory, runs), streamUs: await publishToStream(memory, runs) },
    heaps: [],
  };
  const gc = collect();
  for (let batch = 0; batch < 4; batch++) {
    for (let n = 0; n < (smoke ? 2_000 : 20_000); n++)
      await memory.publishEvent('bench.tick', { n, note: 'x'.repeat(64) });
    gc();
    figures.heaps.push(process.memoryUsage().heapUsed / 2 ** 20);
  }
  memory.close();
  figures.redis = await onRedis(smoke ? 50 : 1_000);
  return figures;
}

async function onRedis(runs: number): Promise<EventCosts['redis']> {
  const keyPrefix = `bench-events:${randomUUID()}:`;
  const connections = McpRedisConnections.open(
    { url: REDIS_URL, keyPrefix },
    { warn: () => undefined, log: () => undefined },
  );
  const ready =
    connections.commands.status === 'ready' ||
    (await Promise.race([
      new Promise<boolean>((resolve) => connections.commands.once('ready', () => resolve(true))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3_000).unref()),
    ]));
  const kernel = kernelWith(new RedisEventStore(connections));
  try {
    if (!ready) return undefined;
    await publishToPoll(kernel, runs / 10);
    return { pollUs: await publishToPoll(kernel, runs), streamUs: await publishToStream(kernel, runs) };
  } finally {
    kernel.close();
    if (ready) {
      const keys = await connections.commands.keys(`${keyPrefix}*`);
      if (keys.length > 0) await connections.commands.del(...keys);
    }
    await connections.close();
  }
}

/** The row as the bench prints it: CPU µs per occurrence, and each as a multiple of the two baselines. */
export function printEvents(costs: EventCosts, fmt: (value: number, digits?: number) => string): void {
  const ratio = (us: number) => `${fmt(us / costs.toolCallUs, 2)}× tools/call, ${fmt(us / costs.emitUs, 0)}× emit`;
  const row = (label: string, us: number) => `| ${label} | ${fmt(us, 2)} | ${ratio(us)} |`;
  console.log('\nEvents (SEP-3415): CPU time of this process per occurrence, baselines taken in the same run\n');
  console.log('| path | CPU µs per occurrence | against the baselines |');
  console.log('|---|---:|---|');
  console.log(row('baseline: tools/call add (kernel)', costs.toolCallUs));
  console.log(row('baseline: EventEmitter emit', costs.emitUs));
  console.log(row('publish → events/poll, in memory', costs.memory.pollUs));
  console.log(row('publish → events/stream, in memory', costs.memory.streamUs));
  if (costs.redis) {
    console.log(row('publish → events/poll, Redis Streams', costs.redis.pollUs));
    console.log(row('publish → events/stream, Redis Streams (read every 500 ms)', costs.redis.streamUs));
  } else console.log('| Redis Streams | no Redis at REDIS_URL: not measured | |');
  console.log(
    `Heap after each batch of occurrences past the retention (1,000 kept): ${costs.heaps.map((h) => fmt(h, 1)).join(' → ')} MiB`,
  );
}
