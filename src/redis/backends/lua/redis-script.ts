import { createHash } from 'node:crypto';

/** What of a connection (one Redis, or a Cluster) a script runs on. */
interface ScriptClient {
  evalsha(sha: string, keys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
  eval(source: string, keys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
}

/**
 * A Lua script sent by its SHA-1 (`EVALSHA`), its text only when Redis does not have it yet (`NOSCRIPT`: a fresh
 * server, a failover, `SCRIPT FLUSH`), so a hot path like a publish or a poll sends a 40-character digest instead
 * of the script on every call. A `NOSCRIPT` answer means nothing ran, so sending the text then runs it once.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(
    private readonly source: string,
    private readonly keys: number,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: ScriptClient, ...keysAndArgs: Array<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, this.keys, ...keysAndArgs);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, this.keys, ...keysAndArgs);
    }
  }
}
