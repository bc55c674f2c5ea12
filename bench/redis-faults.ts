import 'reflect-metadata';
import { mcpMessage } from '../src/testing/index.js';
import {
  listenOn,
  postTo,
  quietRedisLogs,
  startFleetInstance,
  until,
  type FleetInstance,
} from '../test/support/redis-fleet.js';
import { RedisServerProcess, testKeyPrefix } from '../test/support/redis-server.js';
import type { LiveResponse } from '../test/support/sse-client.js';

/**
 * `npm run bench:redis-faults`: what a client sees while Redis fails, and how long recovery takes, with figures.
 * Two instances in this process (Nest + Express, the documented `McpRedisModule` set-up) share a `redis-server`
 * of this script's own on a free port, which it keeps from starting, kills (SIGKILL, as a crash), restarts and
 * freezes (SIGSTOP, as a hung server). For each fault it records, for a call that needs nothing from Redis
 * (`add`) and one that does (the retry of a `singleUseState` tool, which consumes its state in Redis), the
 * status, JSON-RPC code and message; how long the failing calls took; the RSS and live heap around batches of
 * `FAILING_CALLS` refused calls; and, from the moment Redis answers PING again, the time to the first
 * successful Redis-dependent call and to the first event from the other instance on a listen stream.
 * Run with `--expose-gc` (the npm script does) so the heap figure is the live heap.
 */
const FAILING_CALLS = Number(process.env.FAULT_CALLS ?? 5_000);
const CONCURRENCY = 8;
const BATCHES = 3;
const HUNG_MAX_PENDING = 100;
const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_MS ?? 5_000);
const CAPS = { clientCapabilities: { elicitation: {} } };
const CONFIRM = { confirm: { action: 'accept', content: { ok: true } } };
const PROBE = 'test://probe';
const ADD = mcpMessage('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });

interface Answer {
  status: number;
  body: Record<string, any>;
}

/** The messages a listen stream received, as short strings, with when each arrived. */
type Seen = Array<{ at: number; what: string }>;

interface FaultRow {
  fault: string;
  redisFree: string;
  redisDependent: string;
  failingCallMs: { p50: number; max: number };
  memory: string;
  stream: string;
  toFirstSuccess: number;
  toStreamEvent: number;
  resync: string;
}

/** The first round of `transfer` (needs no Redis) and the body of its retry, which consumes the state in Redis. */
async function retryBody(instance: FleetInstance): Promise<Record<string, unknown>> {
  const first = await postTo(instance, mcpMessage('tools/call', { name: 'transfer', arguments: {} }, CAPS));
  if (first.body.result?.resultType !== 'input_required') throw new Error(`unexpected ${JSON.stringify(first.body)}`);
  return mcpMessage(
    'tools/call',
    { name: 'transfer', arguments: {}, inputResponses: CONFIRM, requestState: first.body.result.requestState },
    CAPS,
  );
}

const describeAnswer = ({ status, body }: Answer) =>
  body.error
    ? `HTTP ${status}, JSON-RPC ${body.error.code} "${body.error.message}"`
    : `HTTP ${status}, result ${JSON.stringify(body.result?.content?.[0]?.text ?? body.result)}`;

function memory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss: rss / 2 ** 20, heap: heapUsed / 2 ** 20 };
}

/**
 * `BATCHES` batches of `FAILING_CALLS` Redis-dependent calls, `CONCURRENCY` at a time; each must fail with -32603.
 * Memory is read before and after each batch: the first also warms the process (JIT, pools, heap growth), so a
 * leak shows as growth over the later ones.
 */
async function failingCalls(instance: FleetInstance, retry: Record<string, unknown>) {
  const latencies: number[] = [];
  // How many failed for each reason (the message after "Redis is unavailable (…): ").
  const reasons = new Map<string, number>();
  const batch = async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < FAILING_CALLS) {
          const sent = performance.now();
          const answer = await postTo(instance, retry);
          latencies.push(performance.now() - sent);
          if (answer.body.error?.code !== -32603) throw new Error(`a call did not fail: ${describeAnswer(answer)}`);
          const reason = String(answer.body.error.message).replace(/^[^:]*: /, '');
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        }
      }),
    );
    return memory();
  };
  const readings = [memory()];
  for (let i = 0; i < BATCHES; i++) readings.push(await batch());
  latencies.sort((x, y) => x - y);
  const of = (field: 'rss' | 'heap', digits: number) =>
    readings.map((reading) => reading[field].toFixed(digits)).join(' → ');
  return {
    latency: { p50: latencies[Math.floor(latencies.length / 2)], max: latencies[latencies.length - 1] },
    memory: `RSS ${of('rss', 0)} MB, live heap ${of('heap', 1)} MB`,
    reasons: [...reasons].map(([reason, count]) => `${count.toLocaleString('en-US')} × "${reason}"`).join(', '),
  };
}

/** Every message a stream receives, kept as short strings with the time each arrived; `ended` once it ends. */
function collect(stream: LiveResponse): Seen {
  const seen: Seen = [];
  void (async () => {
    for (;;) {
      const message = await stream.next();
      const uri = (message.params as { uri?: string } | undefined)?.uri;
      seen.push({ at: performance.now(), what: uri ? `${message.method} ${uri}` : String(message.method) });
    }
  })().catch(() => seen.push({ at: performance.now(), what: 'ended' }));
  return seen;
}

/**
 * From `since` (Redis answering again): the first Redis-dependent call that succeeds (the retry is polled every
 * 10 ms; a refused retry consumes nothing, so it succeeds exactly once), and the first event published by `from`
 * that reaches the stream on the other instance (a probe published every 10 ms; what is published while Redis is
 * away is lost, so whatever arrives was published after).
 */
async function recovery(
  caller: FleetInstance,
  retry: Record<string, unknown>,
  from: FleetInstance,
  seen: Seen,
  since: number,
): Promise<{ toFirstSuccess: number; toStreamEvent: number }> {
  const success = (async () => {
    for (;;) {
      const answer = await postTo(caller, retry);
      if (answer.body.result?.content?.[0]?.text === 'transferred') return performance.now() - since;
      if (answer.body.error?.code !== -32603) throw new Error(`unexpected retry answer: ${describeAnswer(answer)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const event = (async () => {
    for (;;) {
      from.server.notifyResourceUpdated(PROBE);
      const arrived = seen.find((message) => message.what.endsWith(PROBE) && message.at >= since);
      if (arrived) return arrived.at - since;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const [toFirstSuccess, toStreamEvent] = await Promise.all([success, event]);
  return { toFirstSuccess, toStreamEvent };
}

/** Keeps Redis down until `upAt` (a `performance.now()` time), starts it, and measures the recovery. */
async function restore(
  redis: RedisServerProcess,
  upAt: number,
  ...probe: [caller: FleetInstance, retry: Record<string, unknown>, from: FleetInstance, seen: Seen]
): Promise<{ toFirstSuccess: number; toStreamEvent: number }> {
  const left = upAt - performance.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  await redis.start();
  return recovery(...probe, performance.now());
}

async function twoInstances(
  redis: RedisServerProcess,
  options: { maxPendingCommands?: number } = {},
): Promise<[FleetInstance, FleetInstance]> {
  const keyPrefix = testKeyPrefix();
  return [
    await startFleetInstance({ url: redis.url, keyPrefix, ...options }),
    await startFleetInstance({ url: redis.url, keyPrefix, ...options }),
  ];
}

/** Redis down when both instances start, up again after the outage. */
async function unreachableAtStartUp(redis: RedisServerProcess): Promise<FaultRow> {
  const started = performance.now();
  const [a, b] = await twoInstances(redis);
  const startUpMs = performance.now() - started;
  try {
    const stream = await listenOn(a, [PROBE]);
    const seen = collect(stream);
    const retry = await retryBody(a);
    const redisFree = await postTo(a, ADD);
    const dependent = await postTo(a, retry);
    const failing = await failingCalls(a, retry);
    const times = await restore(redis, started + OUTAGE_MS, a, retry, b, seen);
    stream.close();
    return {
      fault: `Redis unreachable at start-up (down ${(OUTAGE_MS / 1000).toFixed(0)} s)`,
      redisFree: `both instances started (${startUpMs.toFixed(0)} ms); ${describeAnswer(redisFree)}`,
      redisDependent: `${describeAnswer(dependent)}; the failing calls: ${failing.reasons}`,
      failingCallMs: failing.latency,
      memory: failing.memory,
      stream: seen.some((message) => message.what.endsWith('acknowledged'))
        ? 'opens, is acknowledged'
        : 'NOT acknowledged',
      ...times,
      resync: resyncOf(seen, started),
    };
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

/** Redis killed while both instances run; `downMs` later it starts again on the same port, empty. */
async function killedMidRun(redis: RedisServerProcess, downMs: number, label: string): Promise<FaultRow> {
  await redis.start();
  const [a, b] = await twoInstances(redis);
  try {
    await until(() => a.backends.listening && b.backends.listening, 'both instances listen');
    const stream = await listenOn(a, [PROBE]);
    const seen = collect(stream);
    await until(() => seen.length > 0, 'the stream is acknowledged');
    const retry = await retryBody(a);

    const killed = performance.now();
    await redis.kill();
    await until(() => !a.connections.ready && !b.connections.ready, 'both instances saw the crash');
    const redisFree = await postTo(a, ADD);
    const dependent = await postTo(a, retry);
    const failing = downMs > 0 ? await failingCalls(a, retry) : undefined;
    const times = await restore(redis, killed + downMs, a, retry, b, seen);
    stream.close();
    return {
      fault: label,
      redisFree: describeAnswer(redisFree),
      redisDependent: failing
        ? `${describeAnswer(dependent)}; the failing calls: ${failing.reasons}`
        : describeAnswer(dependent),
      failingCallMs: failing?.latency ?? { p50: NaN, max: NaN },
      memory: failing?.memory ?? '-',
      stream: streamState(seen),
      ...times,
      resync: resyncOf(seen, killed),
    };
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

/**
 * Redis frozen (SIGSTOP) while both instances run: commands get no answer until it thaws. With the default
 * bounds the first 1,000 calls would each wait the 2 s command timeout; 100 keeps the run short and shows the same.
 */
async function hung(redis: RedisServerProcess): Promise<FaultRow> {
  await redis.start();
  const [a, b] = await twoInstances(redis, { maxPendingCommands: HUNG_MAX_PENDING });
  try {
    await until(() => a.backends.listening && b.backends.listening, 'both instances listen');
    const stream = await listenOn(a, [PROBE]);
    const seen = collect(stream);
    const retry = await retryBody(a);
    const paused = performance.now();
    redis.pause();
    const redisFree = await postTo(a, ADD);
    const sent = performance.now();
    const dependent = await postTo(a, retry);
    const firstFailMs = performance.now() - sent;
    const failing = await failingCalls(a, await retryBody(a));
    redis.resume();
    const back = performance.now();
    // The frozen Redis answers the held commands when it thaws: the first retry may have been consumed then.
    const times = await recovery(a, await retryBody(a), b, seen, back);
    stream.close();
    return {
      fault: `Redis frozen (SIGSTOP), maxPendingCommands ${HUNG_MAX_PENDING}`,
      redisFree: describeAnswer(redisFree),
      redisDependent: `${describeAnswer(dependent)} after ${firstFailMs.toFixed(0)} ms; the failing calls: ${failing.reasons}`,
      failingCallMs: failing.latency,
      memory: failing.memory,
      stream: streamState(seen),
      ...times,
      resync: resyncOf(seen, paused),
    };
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

function streamState(seen: Array<{ what: string }>): string {
  return seen.some((message) => message.what === 'ended') ? 'ENDED' : 'stays open';
}

/**
 * Whether the stream was told, since the fault began, that the lists may have changed (it may have missed
 * events). Counted from the fault, not from `back`: after a quick restart the instances can be subscribed again
 * before this script's own PING sees Redis answer.
 */
function resyncOf(seen: Seen, since: number): string {
  const resync = seen.filter((message) => message.at >= since && message.what.endsWith('list_changed'));
  return resync.length > 0 ? resync.map((message) => message.what.split('/')[1]).join(', ') + ' list_changed' : 'none';
}

async function main(): Promise<void> {
  quietRedisLogs();
  const unhandled: unknown[] = [];
  process.on('unhandledRejection', (reason) => unhandled.push(reason));
  const redis = await RedisServerProcess.onFreePort();
  const rows: FaultRow[] = [];
  try {
    rows.push(await unreachableAtStartUp(redis));
    await redis.kill();
    rows.push(await killedMidRun(redis, OUTAGE_MS, `Redis killed mid-run, down ${(OUTAGE_MS / 1000).toFixed(0)} s`));
    await redis.kill();
    rows.push(await killedMidRun(redis, 0, 'Redis restarted (killed and started again at once)'));
    await redis.kill();
    rows.push(await hung(redis));
  } finally {
    await redis.kill();
  }
  console.log(
    `Redis faults, two instances in one process (Node ${process.version}); per fault, ${BATCHES} batches of ` +
      `${FAILING_CALLS.toLocaleString('en-US')} failing calls ${CONCURRENCY} at a time (memory before and after each); ` +
      `recovery measured from Redis answering PING again\n`,
  );
  console.log(
    '| fault | call needing no Redis | call needing Redis (single-use retry) | failing call ms p50 / max | memory: before → after each batch | open listen stream | back → first successful Redis call ms | back → first cross-instance event on the stream ms | resync sent to the stream |',
  );
  console.log('|---|---|---|---:|---|---|---:|---:|---|');
  const ms = (n: number) => (Number.isNaN(n) ? '-' : n.toFixed(0));
  for (const row of rows) {
    console.log(
      `| ${row.fault} | ${row.redisFree} | ${row.redisDependent} | ${ms(row.failingCallMs.p50)} / ${ms(row.failingCallMs.max)} | ${row.memory} | ${row.stream} | ${ms(row.toFirstSuccess)} | ${ms(row.toStreamEvent)} | ${row.resync} |`,
    );
  }
  console.log(`\nUnhandled rejections: ${unhandled.length}`);
  if (unhandled.length > 0) process.exitCode = 1;
}

await main();
process.exit();
