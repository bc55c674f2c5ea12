import type { McpRedisConnections } from '../redis-connections.js';
import { RedisScript } from '../lua/redis-script.js';

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

// KEYS and the first ARGV as KEPT_BYTES, then for a create the owner's admission index; ARGV then the task's new
// size, the owner's byte share (-1: none), the task id, its expiry, its TTL. Sets the task's entry to its new
// size; one that grows is checked against the share. A create's count, sent right after its admission, counts
// nothing unless the admission let the task in (-2), so a refused create never holds bytes, even for a moment.
// Answers the entry's previous size, or '' when it had none, so RELEASE_BYTES can put it back; -1 when the share
// would be exceeded.
const SET_BYTES = new RedisScript(`${KEPT_BYTES}
local size, share, id = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
if KEYS[3] and not redis.call('ZSCORE', KEYS[3], id) then return -2 end
local previous = redis.call('HGET', KEYS[1], id) or ''
if share >= 0 and size > (tonumber(previous) or 0) then
  while total - (tonumber(previous) or 0) + size > share do
    if trim(${TRIM_BEFORE_REFUSING}) == 0 then return -1 end
    previous = redis.call('HGET', KEYS[1], id) or ''
  end
end
put(id, size, tonumber(previous) or 0, ARGV[5], tonumber(ARGV[6]))
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
 * What `set` did: counted the new size (`previous`, the size it replaced, '' for none, for `release`), refused
 * it past the share (`full`), or, for a create, found the task not admitted and counted nothing.
 */
export type KeptCount = { previous: string } | 'full' | 'not-admitted';

/**
 * The bytes each owner's live tasks keep on Redis (results and queued calls), counted against the owner's share
 * in constant time whatever the number of its tasks: one script per change, sent by SHA1.
 */
export class RedisKeptBytes {
  constructor(
    private readonly redis: McpRedisConnections,
    private readonly now: () => number,
  ) {}

  /**
   * Sets the bytes `task` keeps to `size`, within `share` if they grow. With `admittedIn` (the owner's admission
   * index), counts them only once the task is admitted there.
   */
  async set(
    task: KeptTask,
    expiresAt: number,
    size: number,
    share = Infinity,
    admittedIn?: string,
  ): Promise<KeptCount> {
    const now = this.now();
    const keys = this.keys(task);
    if (admittedIn !== undefined) keys.push(admittedIn);
    const args = [now, size, Number.isFinite(share) ? share : -1, task.taskId, expiresAt, Math.max(expiresAt - now, 1)];
    const outcome = await this.redis.run('count the bytes a task keeps', (redis) => SET_BYTES.run(redis, keys, args));
    if (outcome === -1) return 'full';
    if (outcome === -2) return 'not-admitted';
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
