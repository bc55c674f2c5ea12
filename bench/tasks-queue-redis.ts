import { Redis } from 'ioredis';
import { RedisServerProcess } from '../test/support/redis-server.js';

/**
 * A `redis-server` of the tasks-queue bench's own (nothing else runs commands on it, so `INFO commandstats` and
 * `INFO cpu` deltas are the bench's alone), and the figures read from it.
 */
export class BenchRedis {
  private constructor(
    private readonly server: RedisServerProcess,
    readonly client: Redis,
  ) {}

  static async start(): Promise<BenchRedis> {
    const server = await RedisServerProcess.onFreePort();
    await server.start();
    return new BenchRedis(server, new Redis(server.url, { maxRetriesPerRequest: 1 }));
  }

  get url(): string {
    return this.server.url;
  }

  /** Calls per command name since start-up; commands a script runs count under their own names. */
  async commands(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const line of (await this.client.info('commandstats')).split('\n')) {
      const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
      if (match) counts.set(match[1], Number(match[2]));
    }
    return counts;
  }

  /** The server's CPU seconds (user + system) since start-up. */
  async cpuSeconds(): Promise<number> {
    const info = await this.client.info('cpu');
    const read = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
    return read('used_cpu_user') + read('used_cpu_sys');
  }

  /** Empties the server between measured runs: each starts from no keys, so none pays for the one before. */
  async flush(): Promise<void> {
    await this.client.flushall();
  }

  async stop(): Promise<void> {
    this.client.disconnect();
    await this.server.kill();
  }
}

/** A window of Redis work: commands (by name, the measuring INFO calls taken out) and server CPU. */
export interface RedisWindow {
  commands: Map<string, number>;
  cpuSeconds: number;
}

/** Opens a window on `redis`; the function it resolves with closes it. */
export async function redisWindow(redis: BenchRedis): Promise<() => Promise<RedisWindow>> {
  const before = await redis.commands();
  const cpuBefore = await redis.cpuSeconds();
  return async () => {
    const cpuAfter = await redis.cpuSeconds();
    const after = await redis.commands();
    const commands = new Map<string, number>();
    for (const [name, calls] of after) {
      // The INFO calls reading the window are the bench's, not the work's.
      const delta = calls - (before.get(name) ?? 0) - (name === 'info' ? 3 : 0);
      if (delta > 0) commands.set(name, delta);
    }
    return { commands, cpuSeconds: cpuAfter - cpuBefore };
  };
}

/** The sum of a window's command calls. */
export function totalCommands(window: RedisWindow): number {
  let total = 0;
  for (const calls of window.commands.values()) total += calls;
  return total;
}
