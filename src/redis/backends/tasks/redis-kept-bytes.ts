import type { McpRedisConnections } from '../redis-connections.js';
import { RedisScript } from '../lua/redis-script.js';
import { ADMIT_FUNCTION, type AdmissionIndexes } from '../redis-admission.js';

// Expired entries dropped by each change: more than the one entry a change can add, so the sizes never lag.
const TRIM_PER_CHANGE = 4;
// Expired entries dropped at a time before refusing a change, until none is left or the change fits.
const TRIM_BEFORE_REFUSING = 256;

// What an owner's tasks keep (results and queued calls, `keptBytes`), in two keys of the server's limits slot: a
// hash of each task's size by task id with their sum under '*', and the same ids scored by their task's expiry.
// Every change keeps the sum true to the sizes, so a store reads one field instead of adding up the owner's
// tasks; expired entries leave a few at a time (ZRANGEBYSCORE ... LIMIT), and all of them before a refusal, so
// the share counts exactly the tasks still live whatever their number. ARGV[1] is now. Both keys live as long
// as the longest-lived entry, the expiries a second longer: sizes whose expiry is gone could never be trimmed,
// while expiries whose sizes are gone take nothing off the sum. Both are set whenever an entry comes in, whether
// they grow or not (the expiries may have just been created again), so a change runs the same commands whatever
// the clocks; an entry already in keeps its expiry (a task's never changes), which both keys already outlive.
const KEPT_BYTES = `
local now = tonumber(ARGV[1])
local total = tonumber(redis.call('HGET', KEYS[1], '*') or '0')
local function trim(limit)
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)
  if #gone == 0 then return 0 end
  local sizes = redis.call('HMGET', KEYS[1], unpack(gone))
  for i = 1, #gone do total = total - (tonumber(sizes[i]) or 0) end
  redis.call('HDEL', KEYS[1], unpack(gone))
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('HSET', KEYS[1], '*', total)
  return #gone
end
local function put(id, size, before, expiresAt, ttl)
  if size > 0 then
    redis.call('HSET', KEYS[1], id, size, '*', total + size - before)
    if before == 0 then
      redis.call('ZADD', KEYS[2], expiresAt, id)
      local keep = math.max(redis.call('PTTL', KEYS[1]), ttl)
      redis.call('PEXPIRE', KEYS[1], keep)
      redis.call('PEXPIRE', KEYS[2], keep + 1000)
    end
  elseif before > 0 then
    redis.call('HDEL', KEYS[1], id)
    redis.call('HSET', KEYS[1], '*', total - before)
    redis.call('ZREM', KEYS[2], id)
  end
end
trim(${TRIM_PER_CHANGE})
`;

// Sets a task's entry to its new size; one that grows is checked against the share (-1: none). Answers the entry's
// previous size, or '' when it had none, so RELEASE_BYTES can put it back; -1 when the share would be exceeded.
const COUNT = `
local function count(id, size, share, expiresAt, ttl)
  local previous = redis.call('HGET', KEYS[1], id) or ''
  if share >= 0 and size > (tonumber(previous) or 0) then
    while total - (tonumber(previous) or 0) + size > share do
      if trim(${TRIM_BEFORE_REFUSING}) == 0 then return -1 end
      previous = redis.call('HGET', KEYS[1], id) or ''
    end
  end
  put(id, size, tonumber(previous) or 0, expiresAt, ttl)
  return previous
end
`;

// KEYS and the first ARGV as KEPT_BYTES; ARGV then the task's new size, the owner's byte share (-1: none), the task
// id, its expiry, its TTL. Answers as COUNT.
const SET_BYTES = new RedisScript(`${KEPT_BYTES}${COUNT}
return count(ARGV[4], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[5], tonumber(ARGV[6]))
`);

// A create's admission and the count of its call's bytes in one step: KEYS as KEPT_BYTES, then the owner's admission
// index and the index of all; ARGV as SET_BYTES, then the per-owner and total limits. A task over the byte share is
// not admitted, and one the limits refuse counts nothing. Answers as COUNT, or the admission's refusal ('owner',
// 'total').
const ADMIT_AND_SET_BYTES = new RedisScript(`${KEPT_BYTES}${COUNT}${ADMIT_FUNCTION}
local size, share, id, expiresAt, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5], tonumber(ARGV[6])
local previous
local outcome = admit(KEYS[3], KEYS[4], now, tonumber(ARGV[7]), tonumber(ARGV[8]), id, expiresAt, ttl, function()
  previous = count(id, size, share, expiresAt, ttl)
  if previous == -1 then return -1 end
end)
if outcome ~= 'admitted' then return outcome end
return previous
`);

// KEYS and the first ARGV as KEPT_BYTES; then the task id, the size SET_BYTES answered, the task's expiry, its
// TTL. Undoes a change whose record was not stored (nothing comes back for a task that has expired since).
const RELEASE_BYTES = new RedisScript(`${KEPT_BYTES}
local id = ARGV[2]
local before = tonumber(redis.call('HGET', KEYS[1], id) or '0')
local size = tonumber(ARGV[3]) or 0
if tonumber(ARGV[4]) <= now then size = 0 end
put(id, size, before, ARGV[4], tonumber(ARGV[5]))
`);

/** A task, as far as its kept bytes are concerned (a `StoredTask` is one). */
export interface KeptTask {
  server: string;
  owner: string;
  taskId: string;
}

/**
 * What a count did: counted the new size (`previous`, the size it replaced, '' for none, for `release`), or
 * refused it past the share (`full`).
 */
export type KeptCount = { previous: string } | 'full';

/**
 * The bytes each owner's live tasks keep on Redis (results and queued calls), counted against the owner's share
 * in constant time whatever the number of its tasks: one script per change, sent by SHA1.
 */
export class RedisKeptBytes {
  constructor(
    private readonly redis: McpRedisConnections,
    private readonly now: () => number,
  ) {}

  /** Sets the bytes `task` keeps to `size`, within `share` if they grow. */
  async set(task: KeptTask, expiresAt: number, size: number, share = Infinity): Promise<KeptCount> {
    const now = this.now();
    const args = [now, size, shareArg(share), task.taskId, expiresAt, Math.max(expiresAt - now, 1)];
    const outcome = await this.redis.run('count the bytes a task keeps', (redis) =>
      SET_BYTES.run(redis, this.keys(task), args),
    );
    return outcome === -1 ? 'full' : { previous: outcome as string };
  }

  /**
   * A new task's admission under `limits` (in `indexes`, as `RedisAdmission.admit`) and the count of the `size`
   * bytes it keeps, within the owner's share of result bytes, in one step: admitted only if both allow it.
   */
  async admit(
    task: KeptTask,
    entry: { expiresAt: number; ttlMs: number; now: number },
    size: number,
    indexes: AdmissionIndexes,
    limits: { perOwner: number; total: number; bytesPerOwner?: number },
  ): Promise<KeptCount | 'owner' | 'total'> {
    const keys = [...this.keys(task), indexes.owner, indexes.all];
    const { expiresAt, ttlMs, now } = entry;
    const args = [
      now,
      size,
      shareArg(limits.bytesPerOwner ?? Infinity),
      task.taskId,
      expiresAt,
      ttlMs,
      limits.perOwner,
      limits.total,
    ];
    const outcome = await this.redis.run('create a task', (redis) => ADMIT_AND_SET_BYTES.run(redis, keys, args));
    if (outcome === -1) return 'full';
    if (outcome === 'owner' || outcome === 'total') return outcome;
    return { previous: outcome as string };
  }

  /** Puts back the size `set` replaced, for a change whose record was not stored. */
  async release(task: KeptTask, expiresAt: number, count: { previous: string }): Promise<void> {
    const now = this.now();
    const args = [now, task.taskId, count.previous, expiresAt, Math.max(expiresAt - now, 1)];
    await this.redis.run('release kept bytes', (redis) => RELEASE_BYTES.run(redis, this.keys(task), args));
  }

  /** The owner's kept sizes (with their sum) and their expiries, in the slot of the server's limits. */
  private keys(task: KeptTask): string[] {
    const owner = this.redis.slot('tasks', task.server) + ':kept:' + task.owner;
    return [owner, owner + ':until'];
  }
}

function shareArg(share: number): number {
  return Number.isFinite(share) ? share : -1;
}
