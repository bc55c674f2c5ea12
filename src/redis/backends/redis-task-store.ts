import { isTerminalStatus } from '../../protocol/extensions/tasks.js';
import {
  InMemoryTaskStore,
  keepingIdentity,
  keptBytes,
  lapsedTask,
  TaskResultsFull,
  type StoredTask,
  type TaskCreateOutcome,
  type TaskLimits,
  type TaskSignal,
  type TaskStore,
} from '../../server/tasks/task-store.js';
import { RedisAdmission, type AdmissionIndexes } from './redis-admission.js';
import { RedisChannel } from './redis-channel.js';
import type { McpRedisConnections } from './redis-connections.js';
import { McpRedisUnavailableError } from './redis-unavailable-error.js';

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
// while expiries whose sizes are gone take nothing off the sum.
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
    redis.call('ZADD', KEYS[2], expiresAt, id)
    local keep = redis.call('PTTL', KEYS[1])
    if keep < ttl or redis.call('PTTL', KEYS[2]) < ttl then
      keep = math.max(keep, ttl)
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

// KEYS and the first ARGV as KEPT_BYTES; then the task's new size, the owner's byte share (-1: none), the task
// id, its expiry, its TTL. Sets the task's entry to its new size; one that grows is checked against the share.
// Answers the entry's previous size, or '' when it had none, so RELEASE_BYTES can put it back; -1 when the
// share would be exceeded.
const SET_BYTES = `${KEPT_BYTES}
local size, share, id = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local previous = redis.call('HGET', KEYS[1], id) or ''
if share >= 0 and size > (tonumber(previous) or 0) then
  while total - (tonumber(previous) or 0) + size > share do
    if trim(${TRIM_BEFORE_REFUSING}) == 0 then return -1 end
    previous = redis.call('HGET', KEYS[1], id) or ''
  end
end
put(id, size, tonumber(previous) or 0, ARGV[5], tonumber(ARGV[6]))
return previous
`;

// KEYS and the first ARGV as KEPT_BYTES; then the task id, the size SET_BYTES answered, the task's expiry, its
// TTL. Undoes a change whose record was not stored (nothing comes back for a task that has expired since).
const RELEASE_BYTES = `${KEPT_BYTES}
local id = ARGV[2]
local before = tonumber(redis.call('HGET', KEYS[1], id) or '0')
local size = tonumber(ARGV[3]) or 0
if tonumber(ARGV[4]) <= now then size = 0 end
put(id, size, before, ARGV[4], tonumber(ARGV[5]))
`;

// KEYS: the task. ARGV: the record as read, the record to store. Compare-and-set, keeping the TTL: stored only if
// nobody changed the task since it was read, so a terminal status is never overwritten, and a lapse and a late
// renewal, both written against the record they read, never mix: whichever lands second reads again. A script
// rather than WATCH/MULTI, which would need a connection of its own per update.
const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
`;

// Concurrent updates of one task are rare (the runner, a tasks/update, a tasks/cancel): a few retries settle them.
const MAX_UPDATE_ATTEMPTS = 16;
// "Unlimited" (ttlMs null) still ends: nothing this store writes lives for ever.
const DEFAULT_MAX_TTL_MS = 24 * 60 * 60_000;

/**
 * The task store in Redis (SEP-2663 tasks created on one instance, polled, answered and cancelled on any):
 * each task a JSON record expiring at `createdAt + ttlMs`, written before `create` resolves, so `tasks/get` on
 * any instance finds it before the creating answer is sent; updates are compare-and-set, so a terminal status
 * is never overwritten; signals (answers, cancel) travel on one channel that every instance listens to, and
 * reach the listeners of the instance running the task. A running task's lease is a field of its record, renewed
 * by an ordinary update; whichever instance first reads the record past it stores it failed (STORE_LAPSE).
 */
export class RedisTaskStore implements TaskStore {
  // Signals arriving from the channel reach this instance's listeners through the in-memory store's relay (a copy
  // per listener, one listener's exception kept from the others); it holds no tasks.
  private readonly local = new InMemoryTaskStore();
  private readonly channel: RedisChannel;
  private readonly admission: RedisAdmission;

  constructor(
    private readonly redis: McpRedisConnections,
    private readonly options: { maxTtlMs?: number; now?: () => number } = {},
  ) {
    this.admission = new RedisAdmission(redis);
    this.channel = new RedisChannel(redis, redis.key('task-signals'), (message) => this.receive(message));
  }

  /** True while this instance receives the signals sent from others (for readiness checks). */
  get listening(): boolean {
    return this.channel.listening;
  }

  async create(task: StoredTask, limits: TaskLimits): Promise<TaskCreateOutcome> {
    const now = this.now();
    const expiresAt = this.expiryOf(task);
    const ttlMs = Math.max(expiresAt - now, 1);
    const indexes = this.indexes(task.server, task.owner);
    const admitted = await this.admission.admit(
      'create a task',
      indexes,
      { id: task.taskId, expiresAt, ttlMs, now },
      { perOwner: limits.perOwner, total: limits.total },
    );
    if (admitted !== 'admitted') return admitted === 'owner' ? 'owner-limit' : 'total-limit';
    const bytes = keptBytes(task);
    // Counted once admitted, so the share sees the task live; a refusal, like a failed write, withdraws it.
    const stored = await this.admission.record(indexes, task.taskId, async () => {
      if (bytes > 0 && (await this.setBytes(task, bytes, limits.bytesPerOwner)) === -1) return false;
      try {
        await this.redis.run('create a task', (redis) =>
          redis.set(this.taskKey(task.server, task.taskId), JSON.stringify(task), 'PX', ttlMs),
        );
      } catch (error) {
        // Should Redis be away for this too, the entry's expiry takes it off the share.
        if (bytes > 0) await this.releaseBytes(task, '').catch(() => undefined);
        throw error;
      }
      return true;
    });
    if (stored) return 'created';
    await this.admission.withdraw(indexes, task.taskId);
    return 'owner-bytes-limit';
  }

  async get(server: string, taskId: string, owner: string): Promise<StoredTask | undefined> {
    const key = this.taskKey(server, taskId);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const raw = await this.redis.run('read a task', (redis) => redis.get(key));
      const task = this.live(raw);
      if (!task || task.owner !== owner) return undefined;
      const failed = lapsedTask(task, this.now());
      if (!failed) return task;
      if (await this.storeLapse(key, raw!, failed)) return failed;
    }
    throw this.keptChanging('read a task', taskId);
  }

  async update(
    server: string,
    taskId: string,
    change: (task: StoredTask) => StoredTask | undefined,
    maxOwnerBytes = Infinity,
  ): Promise<StoredTask | undefined> {
    const key = this.taskKey(server, taskId);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const raw = await this.redis.run('read a task', (redis) => redis.get(key));
      const current = this.live(raw);
      if (!current) return undefined;
      const failed = lapsedTask(current, this.now());
      if (failed) {
        if (await this.storeLapse(key, raw!, failed)) return undefined;
        continue;
      }
      if (isTerminalStatus(current.status)) return undefined;
      const before = keptBytes(current);
      // `current` is a fresh parse of the stored record: nothing else holds it.
      const next = change(current);
      if (!next) return undefined;
      const stored = keepingIdentity(current, next);
      const size = keptBytes(stored);
      const changed = size !== before;
      const previous = changed ? await this.setBytes(stored, size, maxOwnerBytes) : undefined;
      if (previous === -1) throw new TaskResultsFull();
      if (await this.compareAndSet(key, raw!, stored)) return stored;
      if (changed) await this.releaseBytes(stored, previous as string);
    }
    throw this.keptChanging('update a task', taskId);
  }

  async signal(server: string, taskId: string, signal: TaskSignal): Promise<void> {
    await this.redis.run('signal a task', (redis) =>
      redis.publish(this.channel.name, JSON.stringify({ server, taskId, signal })),
    );
  }

  async subscribe(
    server: string,
    taskId: string,
    listener: (signal: TaskSignal) => void,
  ): Promise<() => Promise<void>> {
    // A signal sent before this instance listens would be lost: a task that cannot be told to stop must not start.
    if (!this.channel.listening)
      throw new McpRedisUnavailableError('Redis is unavailable (subscribe to task signals): not subscribed');
    return this.local.subscribe(server, taskId, listener);
  }

  /** Stops listening for signals (the connections themselves belong to `McpRedisConnections`). */
  close(): void {
    this.channel.close();
  }

  /**
   * Stores the failed record of a lapsed lease, unless the task changed since `raw` was read (a renewal that
   * landed first, by the clock of the instance renewing): then the caller reads it again. True once stored.
   */
  private storeLapse(key: string, raw: string, failed: StoredTask): Promise<boolean> {
    return this.compareAndSet(key, raw, failed, 'fail a lapsed task');
  }

  private async compareAndSet(key: string, raw: string, next: StoredTask, what = 'update a task'): Promise<boolean> {
    const stored = await this.redis.run(what, (redis) =>
      redis.eval(COMPARE_AND_SET, 1, key, raw, JSON.stringify(next)),
    );
    return stored === 1;
  }

  /** Sets the bytes a task keeps in its owner's sizes, within `share` if they grow: the previous size, or -1. */
  private setBytes(task: StoredTask, size: number, share = Infinity): Promise<unknown> {
    const expiresAt = this.expiryOf(task);
    const now = this.now();
    return this.redis.run('count the bytes a task keeps', (redis) =>
      redis.eval(
        SET_BYTES,
        2,
        ...this.keptKeys(task),
        now,
        size,
        Number.isFinite(share) ? share : -1,
        task.taskId,
        expiresAt,
        Math.max(expiresAt - now, 1),
      ),
    );
  }

  /** Puts back the size `setBytes` answered, for a change whose record was not stored. */
  private async releaseBytes(task: StoredTask, previous: string): Promise<void> {
    const expiresAt = this.expiryOf(task);
    const now = this.now();
    await this.redis.run('release kept bytes', (redis) =>
      redis.eval(RELEASE_BYTES, 2, ...this.keptKeys(task), now, task.taskId, previous, expiresAt, expiresAt - now),
    );
  }

  /** The owner's kept sizes (with their sum) and their expiries, in the slot of the server's limits. */
  private keptKeys(task: StoredTask): [string, string] {
    const owner = this.redis.slot('tasks', task.server) + ':kept:' + task.owner;
    return [owner, owner + ':until'];
  }

  private keptChanging(what: string, taskId: string): McpRedisUnavailableError {
    return new McpRedisUnavailableError(
      `Redis is unavailable (${what}): task ${taskId} kept changing under ${MAX_UPDATE_ATTEMPTS} attempts`,
    );
  }

  /** The record, unless it is missing or past its expiry (Redis drops it then too, by its own clock). */
  private live(raw: string | null): StoredTask | undefined {
    if (raw === null) return undefined;
    const task = JSON.parse(raw) as StoredTask;
    return this.expiryOf(task) <= this.now() ? undefined : task;
  }

  private expiryOf(task: StoredTask): number {
    return task.createdAt + (task.ttlMs ?? this.options.maxTtlMs ?? DEFAULT_MAX_TTL_MS);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private receive(message: unknown): void {
    const parsed = message as { server?: unknown; taskId?: unknown; signal?: unknown } | null;
    if (typeof parsed?.server !== 'string' || typeof parsed.taskId !== 'string' || !isTaskSignal(parsed.signal)) return;
    void this.local.signal(parsed.server, parsed.taskId, parsed.signal);
  }

  // Task ids and owners are base64url, so a key ends unambiguously whatever the server is named.
  private taskKey(server: string, taskId: string): string {
    return this.redis.slot('task', server, taskId);
  }

  private indexes(server: string, owner: string): AdmissionIndexes {
    const limits = this.redis.slot('tasks', server);
    return { owner: `${limits}:of:${owner}`, all: limits };
  }
}

function isTaskSignal(value: unknown): value is TaskSignal {
  if (typeof value !== 'object' || value === null) return false;
  const { type, responses } = value as Record<string, unknown>;
  return type === 'cancel' || (type === 'input' && typeof responses === 'object' && responses !== null);
}
