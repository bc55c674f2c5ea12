import { createHash } from 'node:crypto';

/** What of a connection (one Redis, or a Cluster) a script runs on. */
interface ScriptClient {
  evalsha(sha: string, keys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
  eval(source: string, keys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
}

/**
 * A Lua script sent by its SHA-1 (`EVALSHA`), as BullMQ sends its own, its text only when Redis does not have it
 * yet (`NOSCRIPT`: a fresh server, a failover, another node of a cluster, `SCRIPT FLUSH`): a hot path like a task's
 * creation, a publish or a poll sends a 40-character digest instead of the script, and Redis does not hash each
 * copy again to find the one it compiled. A `NOSCRIPT` answer means nothing ran, so sending the text then runs it
 * once.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  run(redis: ScriptClient, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    return redis.evalsha(this.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    });
  }
}
