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
import { RedisScript } from './redis-script.js';

// KEYS: the owner's index, the owner's kept sizes (a hash by task id: result and queued call bytes, `keptBytes`;
// both in the server's limits slot). ARGV: the task's new size, the owner's byte share (-1: none), the task id,
// now. Sets the task's entry to its new size; one that grows is checked against the share, counting only the
// owner's live tasks (those still in its index; the others' entries go). Answers the entry's previous size, or
// '' when it had none, so RELEASE_BYTES can put it back; -1 when the share would be exceeded.
const SET_BYTES = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
local size = tonumber(ARGV[1])
local previous = redis.call('HGET', KEYS[2], ARGV[3]) or ''
if tonumber(ARGV[2]) >= 0 and size > (tonumber(previous) or 0) then
  local held = 0
  local sizes = redis.call('HGETALL', KEYS[2])
  for i = 1, #sizes, 2 do
    if not redis.call('ZSCORE', KEYS[1], sizes[i]) then redis.call('HDEL', KEYS[2], sizes[i])
    elseif sizes[i] ~= ARGV[3] then held = held + tonumber(sizes[i + 1]) end
  end
  if held + size > tonumber(ARGV[2]) then return -1 end
end
if size > 0 then redis.call('HSET', KEYS[2], ARGV[3], ARGV[1]) else redis.call('HDEL', KEYS[2], ARGV[3]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 and redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return previous
`;

// KEYS: the owner's kept sizes. ARGV: the task id, the size SET_BYTES answered. Undoes a change whose record was
// not stored.
const RELEASE_BYTES = `
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
`;

// KEYS: the task. ARGV: the record as read, the record to store. Compare-and-set, keeping the TTL: stored only if
// nobody changed the task since it was read, so a terminal status is never overwritten, and a lapse and a late
// renewal, both written against the record they read, never mix: whichever lands second tries again from the
// record this answers (nil when the task is gone), with no read of its own. 1 once stored. A script rather than
// WATCH/MULTI, which would need a connection of its own per update.
const COMPARE_AND_SET = new RedisScript(`
local current = redis.call('GET', KEYS[1])
if current ~= ARGV[1] then return current end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
`);

// Concurrent updates of one task are rare (the runner, a tasks/update, a tasks/cancel): a few retries settle them.
const MAX_UPDATE_ATTEMPTS = 16;
// "Unlimited" (ttlMs null) still ends: nothing this store writes lives for ever.
const DEFAULT_MAX_TTL_MS = 24 * 60 * 60_000;
// The records of tasks not yet ended that this instance last wrote or read, so that its next update of one (a
// worker's result after its read, a runner's result after its create, a lease renewal) compares against it
// without reading it first. A stale one costs a retry from the record the compare answers, never a wrong write.
const REMEMBERED_RECORDS = 512;
const REMEMBERED_RECORD_BYTES = 16 * 1024;

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
  private readonly remembered = new Map<string, string>();

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
    const key = this.taskKey(task.server, task.taskId);
    const json = JSON.stringify(task);
    const bytes = keptBytes(task);
    // One round trip: the admission, the count of the call's bytes (sent after it on the same connection to the
    // same hash slot, so Redis runs it once the task counts as live) and the record. Nobody knows the task's id
    // before this resolves, so whatever a refusal or a failure left is taken back before anyone could see it.
    const [admission, reserved, write] = await Promise.allSettled([
      this.admission.admit(
        'create a task',
        indexes,
        { id: task.taskId, expiresAt, ttlMs, now },
        { perOwner: limits.perOwner, total: limits.total },
      ),
      bytes > 0 ? this.setBytes(task, bytes, limits.bytesPerOwner) : undefined,
      this.redis.run('create a task', (redis) => redis.set(key, json, 'PX', ttlMs)),
    ]);
    const admitted = admission.status === 'fulfilled' && admission.value === 'admitted';
    const counted = reserved.status === 'fulfilled' && reserved.value !== -1;
    if (admitted && counted && write.status === 'fulfilled') {
      this.remember(key, json, task);
      return 'created';
    }
    await Promise.all([
      write.status === 'fulfilled' ? this.discard(key) : undefined,
      bytes > 0 && counted ? this.releaseBytes(task, reserved.value).catch(() => undefined) : undefined,
      admitted ? this.admission.withdraw(indexes, task.taskId) : undefined,
    ]);
    if (admission.status === 'rejected') throw admission.reason;
    if (admission.value !== 'admitted') return admission.value === 'owner' ? 'owner-limit' : 'total-limit';
    if (reserved.status === 'rejected') throw reserved.reason;
    if (write.status === 'rejected') throw write.reason;
    return 'owner-bytes-limit';
  }

  async get(server: string, taskId: string, owner: string): Promise<StoredTask | undefined> {
    const key = this.taskKey(server, taskId);
    let raw = await this.read(key);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const task = this.live(raw);
      if (!task || task.owner !== owner) return undefined;
      const failed = lapsedTask(task, this.now());
      if (!failed) {
        this.remember(key, raw!, task);
        return task;
      }
      const outcome = await this.compareAndSet(key, raw!, JSON.stringify(failed), 'fail a lapsed task');
      if (outcome === true) {
        this.remembered.delete(key);
        return failed;
      }
      raw = outcome;
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
    const known = this.remembered.get(key);
    let unread = known !== undefined;
    let raw = known ?? (await this.read(key));
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const current = this.live(raw);
      if (!current || isTerminalStatus(current.status)) {
        this.remembered.delete(key);
        return undefined;
      }
      const failed = lapsedTask(current, this.now());
      if (failed) {
        const outcome = await this.compareAndSet(key, raw!, JSON.stringify(failed), 'fail a lapsed task');
        if (outcome === true) {
          this.remembered.delete(key);
          return undefined;
        }
        [raw, unread] = [outcome, false];
        continue;
      }
      const before = keptBytes(current);
      // `current` is a fresh parse of the stored record: nothing else holds it.
      const next = change(current);
      if (!next) return undefined;
      const stored = keepingIdentity(current, next);
      const size = keptBytes(stored);
      const changed = size !== before;
      const json = JSON.stringify(stored);
      let previous: unknown;
      let outcome: true | string | null;
      if (size < before) {
        // Giving bytes back never passes a share: the count and the write go in one round trip. Should the count
        // fail, the stored record keeps its larger count until it expires: too much held, never too little.
        const [count, write] = await Promise.allSettled([
          this.setBytes(stored, size, maxOwnerBytes),
          this.compareAndSet(key, raw!, json),
        ]);
        if (write.status === 'rejected') throw write.reason;
        [previous, outcome] = [count.status === 'fulfilled' ? count.value : -1, write.value];
      } else {
        previous = changed ? await this.setBytes(stored, size, maxOwnerBytes) : undefined;
        if (previous === -1) {
          // A remembered record may be out of date (the task ended elsewhere): only the stored one may refuse.
          if (!unread) throw new TaskResultsFull();
          [raw, unread] = [await this.read(key), false];
          continue;
        }
        outcome = await this.compareAndSet(key, raw!, json);
      }
      if (outcome === true) {
        this.remember(key, json, stored);
        return stored;
      }
      if (changed && previous !== -1) await this.releaseBytes(stored, previous);
      [raw, unread] = [outcome, false];
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

  private read(key: string): Promise<string | null> {
    return this.redis.run('read a task', (redis) => redis.get(key));
  }

  /** True once stored; otherwise the record as it is now (null: gone), to try again from. */
  private async compareAndSet(key: string, raw: string, next: string, what = 'update a task') {
    const outcome = await this.redis.run(what, (redis) => COMPARE_AND_SET.run(redis, [key], [raw, next]));
    return outcome === 1 ? true : (outcome as string | null);
  }

  /** Keeps the record of a task that has not ended, within the bounds above, for its next update here. */
  private remember(key: string, raw: string, task: StoredTask): void {
    this.remembered.delete(key);
    if (isTerminalStatus(task.status) || raw.length > REMEMBERED_RECORD_BYTES) return;
    if (this.remembered.size >= REMEMBERED_RECORDS) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(key, raw);
  }

  /** Deletes a record no one may see (its create was refused or failed); should Redis be away, its TTL does. */
  private async discard(key: string): Promise<void> {
    await this.redis.run('delete a refused task', (redis) => redis.del(key)).catch(() => undefined);
  }

  /** Puts back the size `setBytes` answered, for a change whose record was not stored. */
  private releaseBytes(task: StoredTask, previous: unknown): Promise<unknown> {
    return this.redis.run('release kept bytes', (redis) =>
      redis.eval(RELEASE_BYTES, 1, this.sizesKey(task.server, task.owner), task.taskId, previous as string),
    );
  }

  /** Sets the bytes a task keeps in its owner's sizes, within `share` if they grow: the previous size, or -1. */
  private setBytes(task: StoredTask, size: number, share = Infinity): Promise<unknown> {
    return this.redis.run('count the bytes a task keeps', (redis) =>
      redis.eval(
        SET_BYTES,
        2,
        this.indexes(task.server, task.owner).owner,
        this.sizesKey(task.server, task.owner),
        size,
        Number.isFinite(share) ? share : -1,
        task.taskId,
        this.now(),
      ),
    );
  }

  private sizesKey(server: string, owner: string): string {
    return this.redis.slot('tasks', server) + ':bytes:' + owner;
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
