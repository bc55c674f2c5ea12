import { isTerminalStatus } from '../protocol/tasks.js';
import {
  InMemoryTaskStore,
  keepingIdentity,
  lapsedTask,
  TaskResultsFull,
  type StoredTask,
  type TaskCreateOutcome,
  type TaskLimits,
  type TaskSignal,
  type TaskStore,
} from '../server/tasks/task-store.js';
import { RedisChannel } from './redis-channel.js';
import type { McpRedisConnections } from './redis-connections.js';
import { McpRedisUnavailableError } from './redis-unavailable-error.js';

// KEYS: the task, its owner's index, the index of all the server's tasks (sorted sets scored by expiry). ARGV: now, the
// per-owner and total limits, the record, its TTL, its expiry, its id. Drops what has expired from both indexes,
// checks the limits and stores, atomically, so concurrent creates on several instances cannot overshoot them.
// Each index lives as long as its longest-lived task.
const CREATE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return 'total-limit' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'owner-limit' end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], ARGV[6], ARGV[7])
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
end
return 'created'
`;

// KEYS: the task, its owner's index, the owner's result sizes (a hash by task id). ARGV: the record as read, the
// record to store, the bytes of result it adds, the owner's byte share, the task id, now. Compare-and-set: stored
// only if nobody changed the task since it was read, keeping its TTL; a record that adds result bytes is stored
// only while the owner's live tasks (those still in its index) keep no more than the share (-1 otherwise). A
// script rather than WATCH/MULTI, which would need a connection of its own per update.
const REPLACE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local added = tonumber(ARGV[3])
if added > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6])
  local held = 0
  local sizes = redis.call('HGETALL', KEYS[3])
  for i = 1, #sizes, 2 do
    if redis.call('ZSCORE', KEYS[2], sizes[i]) then held = held + tonumber(sizes[i + 1])
    else redis.call('HDEL', KEYS[3], sizes[i]) end
  end
  if tonumber(ARGV[4]) >= 0 and held + added > tonumber(ARGV[4]) then return -1 end
  redis.call('HSET', KEYS[3], ARGV[5], added)
  local ttl = redis.call('PTTL', KEYS[2])
  if ttl > 0 and redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
`;

// KEYS: the task. ARGV: the record as read, its failed record (a lapsed lease). Compare-and-set, keeping the TTL:
// the lapse and a late renewal both write against the record they read, so whichever lands second finds it
// changed and reads again, and a record is never a mix of the two. Apart from REPLACE, which also keeps the
// result byte shares: a lapse adds no result.
const STORE_LAPSE = `
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

  constructor(
    private readonly redis: McpRedisConnections,
    private readonly options: { maxTtlMs?: number; now?: () => number } = {},
  ) {
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
    const outcome = await this.redis.run('create a task', (redis) =>
      redis.eval(
        CREATE,
        3,
        this.taskKey(task.server, task.taskId),
        this.redis.key('tasks-of', task.server, task.owner),
        this.redis.key('tasks', task.server),
        now,
        limits.perOwner,
        limits.total,
        JSON.stringify(task),
        ttlMs,
        expiresAt,
        task.taskId,
      ),
    );
    return outcome as TaskCreateOutcome;
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
    maxOwnerResultBytes = Infinity,
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
      // `current` is a fresh parse of the stored record: nothing else holds it.
      const next = change(current);
      if (!next) return undefined;
      const stored = keepingIdentity(current, next);
      const added = Math.max((stored.resultBytes ?? 0) - (current.resultBytes ?? 0), 0);
      const replaced = await this.redis.run('update a task', (redis) =>
        redis.eval(
          REPLACE,
          3,
          key,
          this.redis.key('tasks-of', server, stored.owner),
          this.redis.key('task-bytes', server, stored.owner),
          raw!,
          JSON.stringify(stored),
          added,
          Number.isFinite(maxOwnerResultBytes) ? maxOwnerResultBytes : -1,
          taskId,
          this.now(),
        ),
      );
      if (replaced === -1) throw new TaskResultsFull();
      if (replaced === 1) return stored;
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
  private async storeLapse(key: string, raw: string, failed: StoredTask): Promise<boolean> {
    const stored = await this.redis.run('fail a lapsed task', (redis) =>
      redis.eval(STORE_LAPSE, 1, key, raw, JSON.stringify(failed)),
    );
    return stored === 1;
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
    return this.redis.key('task', server, taskId);
  }
}

function isTaskSignal(value: unknown): value is TaskSignal {
  if (typeof value !== 'object' || value === null) return false;
  const { type, responses } = value as Record<string, unknown>;
  return type === 'cancel' || (type === 'input' && typeof responses === 'object' && responses !== null);
}
