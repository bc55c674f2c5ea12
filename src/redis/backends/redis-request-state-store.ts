import type { RequestStateStore } from '../../server/input/request-state-store.js';
import type { McpRedisConnections } from './redis-connections.js';

// Instances judge a state's expiry by their own clocks, which may run a little apart: the id is kept this much
// longer than the state lives, so no instance still accepts a state whose id another has already forgotten.
const CLOCK_SKEW_MARGIN_MS = 60_000;

/**
 * Consumed request-state ids in Redis, so a single-use state is accepted once across every instance:
 * `SET <prefix>state:<id> 1 NX PX <ms>` answers OK to the first caller only, atomically. The key expires a
 * little after the state does (a relative PX, so Redis' clock does not matter). When Redis cannot answer, the
 * call fails with `McpRedisUnavailableError` (-32603) rather than risk running a tool twice.
 */
export class RedisRequestStateStore implements RequestStateStore {
  constructor(
    private readonly redis: McpRedisConnections,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(id: string, expiresAt: number): Promise<boolean> {
    const ttlMs = Math.max(expiresAt - this.now(), 0) + CLOCK_SKEW_MARGIN_MS;
    const reply = await this.redis.run('consume a single-use request state', (redis) =>
      redis.set(this.redis.key('state', id), '1', 'PX', ttlMs, 'NX'),
    );
    return reply === 'OK';
  }
}
