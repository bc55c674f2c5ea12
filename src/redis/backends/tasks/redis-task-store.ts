import { isTerminalStatus } from '../../../protocol/extensions/tasks.js';
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
} from '../../../server/tasks/task-store.js';
import { statusEvent } from '../../../server/tasks/task-records.js';
import type { McpEventBus } from '../../../server/events/event-bus.js';
import { RedisEventBus } from '../redis-event-bus.js';
import { RedisAdmission, type AdmissionIndexes } from '../redis-admission.js';
import { RedisChannel } from '../redis-channel.js';
import type { McpRedisConnections } from '../redis-connections.js';
import { RedisScript } from '../lua/redis-script.js';
import { McpRedisUnavailableError } from '../redis-unavailable-error.js';
import { RedisKeptBytes } from './redis-kept-bytes.js';

// KEYS: the task. ARGV: the record as read, the record to store, and optionally a channel and the message that
// announces the record there, published only with the record, so nobody hears of one that was not kept. Compare-and-set, keeping the TTL: stored only if
// nobody changed the task since it was read, so a terminal status is never overwritten, and a lapse and a late
// renewal, both written against the record they read, never mix: whichever lands second tries again from the
// record this answers (nil when the task is gone), with no read of its own. 1 once stored. A script rather than
// WATCH/MULTI, which would need a connection of its own per update.
const COMPARE_AND_SET = new RedisScript(`
local current = redis.call('GET', KEYS[1])
if current ~= ARGV[1] then return current end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
if ARGV[3] then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
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
  private readonly kept: RedisKeptBytes;
  private readonly remembered = new Map<string, string>();

  constructor(
    private readonly redis: McpRedisConnections,
    private readonly options: { maxTtlMs?: number; now?: () => number } = {},
  ) {
    this.admission = new RedisAdmission(redis);
    this.kept = new RedisKeptBytes(redis, () => this.now());
    this.channel = new RedisChannel(redis, redis.key('task-signals'), (message) => this.receive(message));
  }

  /** True while this instance receives the signals sent from others (for readiness checks). */
  get listening(): boolean {
    return this.channel.listening;
  }

  async create(task: StoredTask, limits: TaskLimits): Promise<TaskCreateOutcome> {
    const now = this.now();
    const expiresAt = this.expiryOf(task);
    const entry = { id: task.taskId, expiresAt, ttlMs: Math.max(expiresAt - now, 1), now };
    const indexes = this.indexes(task.server, task.owner);
    const key = this.taskKey(task.server, task.taskId);
    const json = JSON.stringify(task);
    const bytes = keptBytes(task);
    // One round trip: the admission (with the count of the call's bytes against the caller's share, in the same
    // script, when the task keeps any) and the record. Nobody knows the task's id before this resolves, so a record
    // whose admission refused it, or an admission whose record failed, is taken back before anyone could see it.
    const [admission, write] = await Promise.allSettled([
      bytes > 0
        ? this.kept.admit(task, entry, bytes, indexes, limits)
        : this.admission.admit('create a task', indexes, entry, limits),
      this.redis.run('create a task', (redis) => redis.set(key, json, 'PX', entry.ttlMs)),
    ]);
    const outcome = admission.status === 'fulfilled' ? admission.value : undefined;
    const admitted = outcome === 'admitted' || typeof outcome === 'object';
    if (admitted && write.status === 'fulfilled') {
      this.remember(key, json, task);
      return 'created';
    }
    await Promise.all([
      write.status === 'fulfilled' ? this.discard(key) : undefined,
      typeof outcome === 'object' ? this.kept.release(task, expiresAt, outcome).catch(() => undefined) : undefined,
      admitted ? this.admission.withdraw(indexes, task.taskId) : undefined,
    ]);
    if (admission.status === 'rejected') throw admission.reason;
    if (outcome === 'full') return 'owner-bytes-limit';
    if (outcome === 'owner') return 'owner-limit';
    if (outcome === 'total') return 'total-limit';
    throw (write as PromiseRejectedResult).reason;
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
    announceOn?: McpEventBus,
  ): Promise<StoredTask | undefined> {
    const key = this.taskKey(server, taskId);
    const bus = announceOn && this.announces(announceOn) ? announceOn : undefined;
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
      const event = bus && statusEvent(stored);
      const announce = event ? [bus!.channelName, bus!.message(event)] : [];
      const expiresAt = this.expiryOf(stored);
      let counted: { previous: string } | undefined;
      let outcome: true | string | null;
      if (size < before) {
        // Giving bytes back passes no share: the count (held to no share, so it always matches the record) and
        // the write go in one round trip. Should the count fail, the record keeps its larger count until it
        // expires; should the write fail, the count goes back: too much held, never too little.
        const [count, write] = await Promise.allSettled([
          this.kept.set(stored, expiresAt, size),
          this.compareAndSet(key, raw!, json, undefined, announce),
        ]);
        counted = count.status === 'fulfilled' && typeof count.value === 'object' ? count.value : undefined;
        if (write.status === 'rejected') {
          if (counted) await this.kept.release(stored, expiresAt, counted).catch(() => undefined);
          throw write.reason;
        }
        outcome = write.value;
      } else {
        const count = changed ? await this.kept.set(stored, expiresAt, size, maxOwnerBytes) : undefined;
        if (count === 'full') {
          // A remembered record may be out of date (the task ended elsewhere): only the stored one may refuse.
          if (!unread) throw new TaskResultsFull();
          [raw, unread] = [await this.read(key), false];
          continue;
        }
        counted = typeof count === 'object' ? count : undefined;
        outcome = await this.compareAndSet(key, raw!, json, undefined, announce);
      }
      if (outcome === true) {
        this.remember(key, json, stored);
        if (event) bus!.announced(event);
        return stored;
      }
      if (counted) await this.kept.release(stored, expiresAt, counted);
      [raw, unread] = [outcome, false];
    }
    throw this.keptChanging('update a task', taskId);
  }

  /** A Redis event bus on these connections: the channel is not a key, so a Cluster delivers it from any node. */
  announces(bus: McpEventBus): bus is RedisEventBus {
    return bus instanceof RedisEventBus && bus.publishesThrough(this.redis);
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
  private async compareAndSet(key: string, raw: string, next: string, what = 'update a task', announce: string[] = []) {
    const outcome = await this.redis.run(what, (redis) => COMPARE_AND_SET.run(redis, [key], [raw, next, ...announce]));
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
