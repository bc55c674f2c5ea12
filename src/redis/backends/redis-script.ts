import { createHash } from 'node:crypto';
import type { McpRedisClient } from './redis-connections.js';

/**
 * A Lua script sent by its SHA1 (`EVALSHA`), as BullMQ sends its own: a task's few scripts would otherwise travel
 * whole with every call, and Redis would hash each copy again to find the one it compiled. A server that does not
 * know it yet (first use, a restart, another node of a cluster) answers NOSCRIPT, and the script is sent whole
 * once (`EVAL`), which also keeps it there: a script that did not run is never run twice.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  run(redis: McpRedisClient, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    return redis.evalsha(this.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    });
  }
}
