import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { McpRedisConnections, RedisTaskStore } from '../src/redis/index.js';
import type { StoredTask } from '../src/server/tasks/task-store.js';
import { RedisServerProcess } from '../test/support/redis-server.js';

/**
 * Storing a task's result on the Redis task store while one owner has 100, then 1,000 live tasks (with `auth`
 * off every caller is one owner): the Redis commands one store runs, scripts' own included (`INFO
 * commandstats` of a `redis-server` of the bench's own, so nobody else's commands count), and its median time,
 * each size against the first in the same run. The owner's byte share is on, as `tasks.maxResultBytesPerCaller`
 * always sets it, so every store is checked against it.
 */
export interface TaskBytesRow {
  liveTasks: number;
  commandsPerStore: number;
  medianMs: number;
}

const SIZES = [100, 1_000];
const SHARE = 1_000_000_000;
const LIMITS = { perOwner: 100_000, total: 100_000, bytesPerOwner: SHARE };

function task(taskId: string, now: number, owner = 'owner'): StoredTask {
  const at = { createdAt: now, lastUpdatedAt: now };
  return { taskId, server: 'bench', owner, ttlMs: 600_000, status: 'working', callBytes: 200, ...at };
}

const complete = (t: StoredTask): StoredTask => ({ ...t, status: 'completed', callBytes: undefined, resultBytes: 500 });

async function commandCount(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  return [...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)]
    .filter(([, name]) => name !== 'info')
    .reduce((sum, [, , calls]) => sum + Number(calls), 0);
}

export async function measureTaskBytes(smoke: boolean): Promise<TaskBytesRow[]> {
  const server = await RedisServerProcess.onFreePort();
  await server.start();
  const counter = new Redis(server.url);
  const connections = McpRedisConnections.open({ url: server.url }, { warn: () => undefined, log: () => undefined });
  const store = new RedisTaskStore(connections);
  try {
    for (const deadline = Date.now() + 10_000; !(connections.ready && store.listening);) {
      if (Date.now() > deadline) throw new Error('the bench could not connect to its redis-server');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The newest tasks of each size get their results: the owner has exactly `size` live tasks meanwhile.
    const stores = smoke ? 20 : 100;
    // Warmed up on another owner's tasks, whose keys the measured owner's stores never read.
    for (let i = 0; i < stores; i++) {
      await store.create(task(`w${i}`, Date.now(), 'warm-up'), LIMITS);
      await store.update('bench', `w${i}`, complete, SHARE);
    }
    const rows: TaskBytesRow[] = [];
    let live = 0;
    for (const size of SIZES) {
      for (; live < size; live++) {
        if ((await store.create(task(`t${live}`, Date.now()), LIMITS)) !== 'created')
          throw new Error(`task ${live} was not created`);
      }
      const times: number[] = [];
      const before = await commandCount(counter);
      for (let i = live - stores; i < live; i++) {
        const started = process.hrtime.bigint();
        const done = await store.update('bench', `t${i}`, complete, SHARE);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (done?.status !== 'completed') throw new Error(`task t${i}'s result was not stored`);
      }
      const commands = (await commandCount(counter)) - before;
      times.sort((a, b) => a - b);
      rows.push({
        liveTasks: size,
        commandsPerStore: commands / stores,
        medianMs: times[Math.floor(times.length / 2)],
      });
    }
    return rows;
  } finally {
    store.close();
    await connections.close();
    counter.disconnect();
    await server.kill();
  }
}

export function printTaskBytes(rows: TaskBytesRow[], fmt: (n: number, digits?: number) => string): void {
  console.log(
    '\nStoring a task result on the Redis task store (update to completed with a result, the owner’s byte share on; ' +
      'Redis commands per store from INFO commandstats, scripts’ own included):\n',
  );
  console.log(
    '| live tasks of the owner | Redis commands per store | median ms per store | ÷ the first row (commands; time) |',
  );
  console.log('|---:|---:|---:|---:|');
  const [first] = rows;
  for (const row of rows) {
    const ratio = `${fmt(row.commandsPerStore / first.commandsPerStore, 2)}; ${fmt(row.medianMs / first.medianMs, 2)}`;
    console.log(`| ${fmt(row.liveTasks)} | ${fmt(row.commandsPerStore, 1)} | ${fmt(row.medianMs, 3)} | ${ratio} |`);
  }
}

// Alone: `node build/bench/redis-task-bytes.js` (BENCH_SMOKE=1 for a quick check).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  printTaskBytes(await measureTaskBytes(process.env.BENCH_SMOKE === '1'), fmt);
}
