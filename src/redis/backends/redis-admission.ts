import type { McpRedisConnections } from './redis-connections.js';
import { RedisScript } from './lua/redis-script.js';

/**
 * The admission as a Lua function, for the scripts that admit an entry and do more in the same step: `admit(owner,
 * all, now, maxOwner, maxAll, id, expiresAt, ttl, also)` with the owner's index and the index of all (sorted sets
 * of live ids scored by expiry, in one hash slot). Drops what has expired from both, checks the limits and counts
 * the id in both, atomically, so concurrent admissions on several instances cannot overshoot them; `also` (or
 * nil), called once the limits allow the entry and before it is counted, refuses it by answering anything but
 * nil, which `admit` then answers. Each index lives as long as its longest-lived entry.
 */
export const ADMIT_FUNCTION = `
local function admit(owner, all, now, maxOwner, maxAll, id, expiresAt, ttl, also)
  redis.call('ZREMRANGEBYSCORE', owner, '-inf', now)
  redis.call('ZREMRANGEBYSCORE', all, '-inf', now)
  if redis.call('ZCARD', all) >= maxAll then return 'total' end
  if redis.call('ZCARD', owner) >= maxOwner then return 'owner' end
  if also then
    local refused = also()
    if refused ~= nil then return refused end
  end
  for _, key in ipairs({owner, all}) do
    redis.call('ZADD', key, expiresAt, id)
    if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
  end
  return 'admitted'
end
`;

// KEYS: the owner's index, the index of all. ARGV: now, the per-owner and total limits, the id, its expiry, its TTL.
const ADMIT = new RedisScript(`${ADMIT_FUNCTION}
return admit(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5],
  tonumber(ARGV[6]), nil)
`);

/** The two indexes that count one owner's live entries and everyone's, both keys in one hash slot. */
export interface AdmissionIndexes {
  owner: string;
  all: string;
}

/**
 * Counts a new task or session against the per-owner and total limits, before its own record is written: the
 * indexes of a whole server share one hash slot (the limits are checked together), while each record lives in
 * a slot of its own (records spread over a Redis Cluster). When the record then cannot be written, `withdraw`
 * takes the entry back out, or it would hold a place under the limits until its expiry.
 */
export class RedisAdmission {
  constructor(private readonly redis: McpRedisConnections) {}

  async admit(
    what: string,
    indexes: AdmissionIndexes,
    entry: { id: string; expiresAt: number; ttlMs: number; now: number },
    limits: { perOwner: number; total: number },
  ): Promise<'admitted' | 'owner' | 'total'> {
    const outcome = await this.redis.run(what, (redis) =>
      ADMIT.run(
        redis,
        [indexes.owner, indexes.all],
        [entry.now, limits.perOwner, limits.total, entry.id, entry.expiresAt, entry.ttlMs],
      ),
    );
    return outcome as 'admitted' | 'owner' | 'total';
  }

  /** Takes an entry out of both indexes; should Redis be away for it too, the entry's expiry does it. */
  async withdraw(indexes: AdmissionIndexes, id: string): Promise<void> {
    await this.redis
      .run('withdraw from the limits', (redis) =>
        Promise.all([redis.zrem(indexes.owner, id), redis.zrem(indexes.all, id)]),
      )
      .catch(() => undefined);
  }

  /** Writes a record after `admit`, withdrawing the admission when the write fails (and rethrowing). */
  async record<T>(indexes: AdmissionIndexes, id: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      await this.withdraw(indexes, id);
      throw error;
    }
  }
}
