import { ErrorCode } from '../../protocol/error-codes.js';
import type { CallToolResult, InputRequests, InputResponses } from '../../protocol/mcp-types.js';
import { isTerminalStatus, type TaskError, type TaskStatus } from '../../protocol/extensions/tasks.js';
import { consoleLogger, type McpLogger } from '../mcp-logger.js';
import type { McpEventBus } from '../events/event-bus.js';
import type { TaskCall } from './task-queue.js';

/**
 * One task as stored. Times are epoch milliseconds (the wire shows them as ISO 8601). `owner` is an opaque key
 * of whoever created the task (a digest of the server and the caller identity): a task is visible only to its
 * owner, so another caller learns nothing, not even that it exists.
 */
export interface StoredTask {
  readonly taskId: string;
  /** The name of the server that created it: servers sharing a store never see each other's tasks. */
  readonly server: string;
  readonly owner: string;
  readonly createdAt: number;
  /** From `createdAt`; null keeps the task until it is deleted some other way. The record is gone after it. */
  readonly ttlMs: number | null;
  status: TaskStatus;
  statusMessage?: string;
  lastUpdatedAt: number;
  pollIntervalMs?: number;
  /** What the task waits for while `input_required`, keyed as the client answers them. */
  inputRequests?: InputRequests;
  /** Once `completed` (a tool error included). */
  result?: CallToolResult;
  /** The size of `result` as JSON, in bytes: what counts against the owner's share of result memory. */
  resultBytes?: number;
  /** The JSON-RPC error, once `failed`. */
  error?: TaskError;
  /**
   * Until when the instance running the task holds it (epoch ms); that instance renews it while the handler
   * runs. Once it has passed on a task that has not ended, the task is `failed` (see `lapsedTask`). Absent: the
   * task never lapses.
   */
  leaseExpiresAt?: number;
  /**
   * A task whose work runs on a job queue (`tasks.queue`): the call its rounds run, with the answers so far.
   * Kept until the task ends, then dropped (`DROPPED_CALL`).
   */
  call?: TaskCall;
  /** The size of `call` as JSON, in bytes: it counts against the owner's byte share until the task ends. */
  callBytes?: number;
  /** The MAC that binds `call` to this task, its server and owner: a worker runs no call it does not verify. */
  callMac?: string;
}

/** What a task that ends keeps of its call: nothing, so the arguments do not stay in the store for its `ttlMs`. */
export const DROPPED_CALL = { call: undefined, callBytes: undefined, callMac: undefined } as const;

/** The bytes a task keeps that count against its owner's share: its result, and its call until it ends. */
export function keptBytes(task: StoredTask): number {
  return (task.resultBytes ?? 0) + (task.callBytes ?? 0);
}

/** The status message and error message of a task whose lease lapsed. */
export const INSTANCE_LOST =
  'Task failed: the server instance running it stopped renewing its lease (it crashed, was killed, stalled or lost the task store)';

/**
 * The record a lapsed lease leaves: `failed`, saying the instance was lost, dated at the lapse so that every
 * instance noticing it computes the same record. Undefined while the lease holds, for a task without one, and
 * for a task that has ended.
 */
export function lapsedTask(task: StoredTask, now: number): StoredTask | undefined {
  const expiresAt = task.leaseExpiresAt;
  if (expiresAt === undefined || expiresAt > now || isTerminalStatus(task.status)) return undefined;
  return {
    ...task,
    status: 'failed',
    statusMessage: INSTANCE_LOST,
    error: { code: ErrorCode.InternalError, message: INSTANCE_LOST },
    inputRequests: undefined,
    leaseExpiresAt: undefined,
    lastUpdatedAt: expiresAt,
    ...DROPPED_CALL,
  };
}

/**
 * Thrown by `update` when the record it would store takes the bytes the owner's tasks keep (results and queued
 * calls) past their share: nothing is stored, and the runner ends the task `failed` (or refuses the answers).
 */
export class TaskResultsFull extends Error {
  constructor() {
    super('Task results full');
    this.name = 'TaskResultsFull';
  }
}

/** What an instance tells the instance running a task: answers arrived (`tasks/update`), or stop (`tasks/cancel`). */
export type TaskSignal = { type: 'input'; responses: InputResponses } | { type: 'cancel' };

/** Most tasks stored at once, per owner and in all (of one server); a create past either is refused. */
export interface TaskLimits {
  perOwner: number;
  total: number;
  /** Most bytes (`keptBytes`) the owner's live tasks keep at once: a create whose call would pass it is refused. */
  bytesPerOwner?: number;
}

export type TaskCreateOutcome = 'created' | 'owner-limit' | 'total-limit' | 'owner-bytes-limit';

/**
 * Where tasks live between the `tools/call` that creates one and the `tasks/*` calls about it, which may reach
 * any instance. The kernel holds no task state of its own: every instance reads and writes here, and the
 * instance running a task learns of answers and cancellation through `subscribe`. A shared implementation
 * (Redis, SQL) must keep these promises:
 *
 * - `create` resolves only once `get` on every instance finds the task (the creating answer waits for it).
 * - A task is gone once `createdAt + ttlMs` has passed: `get` and `update` no longer find it.
 * - `update` is an atomic read-modify-write; a task in a terminal status is never changed again.
 * - A task whose `leaseExpiresAt` has passed before it ended is `failed` (`lapsedTask`) for `get` and `update`,
 *   and is stored so, atomically: a renewal racing the lapse either lands first (the task runs on) or finds
 *   the task failed; nothing written after the lapse (a late result) changes it.
 * - `signal` reaches the listeners that `subscribe` registered for the task, on whichever instance they are.
 */
export interface TaskStore {
  /**
   * Stores a new task unless that would exceed a limit (counting only tasks not yet expired, of `task.server`):
   * as many tasks as `limits` allow, and as many bytes (`keptBytes`, a queued task's call) as `bytesPerOwner`.
   * Task ids are unique (the kernel draws them at random), so a store need not check for an existing one.
   * Every key, index and counter is the server's own: `get`, `update`, `signal` and `subscribe` name it too.
   */
  create(task: StoredTask, limits: TaskLimits): Promise<TaskCreateOutcome>;

  /**
   * The task, when the server has it, it has not expired and belongs to `owner`; otherwise undefined. A task
   * whose lease has lapsed is stored `failed` and returned so.
   */
  get(server: string, taskId: string, owner: string): Promise<StoredTask | undefined>;

  /**
   * Applies `change` atomically to the current record and stores what it returns. `change` gets a copy (and
   * replaces nested values rather than changing them in place); it may be called more than once (an optimistic
   * store retries on conflict), so it must not have side effects. Returning undefined leaves the task as it
   * is. `taskId`, `server`, `owner`, `createdAt` and `ttlMs` cannot change.
   * Resolves with the stored record, or undefined when the task is missing or expired, is already in a
   * terminal status, its lease has lapsed (it is then stored `failed`), or `change` declined. A record whose
   * `keptBytes` grow is stored only while the owner's live tasks' `keptBytes` stay within `maxOwnerBytes`;
   * past it, `update` throws `TaskResultsFull`.
   * Given `announceOn` (only when `announces` said yes for that bus), the write that stores the record also
   * publishes its `statusEvent` on the bus, and the store hands it to this instance's listeners once stored.
   */
  update(
    server: string,
    taskId: string,
    change: (task: StoredTask) => StoredTask | undefined,
    maxOwnerBytes?: number,
    announceOn?: McpEventBus,
  ): Promise<StoredTask | undefined>;

  /**
   * Optional: whether `update` can publish a record's status event on `bus` in the same atomic write as the
   * record (the bus and the store on one server): nobody hears of a record the store did not keep, and the event
   * costs no round trip of its own. Otherwise the kernel publishes each event once its record is stored.
   */
  announces?(bus: McpEventBus): boolean;

  /** Delivers a signal to the task's subscribers, wherever they run; none listening is not an error. */
  signal(server: string, taskId: string, signal: TaskSignal): Promise<void>;

  /** Registers the running instance's listener for a task; resolves, once it is listening, with its removal. */
  subscribe(server: string, taskId: string, listener: (signal: TaskSignal) => void): Promise<() => Promise<void>>;
}

const MAX_TIMER_DELAY = 2 ** 31 - 1;

/**
 * The default store: tasks in process memory, for one instance (or several kernels in one process sharing the
 * object). Each task is dropped by a timer at its expiry, and is never served past it even if the timer is late
 * (or the clock is a test's); a create that would hit a limit first sweeps out whatever has expired.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, StoredTask>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly perOwner = new Map<string, number>();
  private readonly perServer = new Map<string, number>();
  private readonly bytesPerOwner = new Map<string, number>();
  private readonly listeners = new Map<string, Set<(signal: TaskSignal) => void>>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly logger: McpLogger = consoleLogger,
  ) {}

  /** Tasks held now, expired ones not yet swept included. */
  get size(): number {
    return this.tasks.size;
  }

  async create(task: StoredTask, limits: TaskLimits): Promise<TaskCreateOutcome> {
    if (this.refusal(task, limits) !== undefined) this.dropAllExpired();
    const refusal = this.refusal(task, limits);
    if (refusal !== undefined) return refusal;
    const key = keyOf(task.server, task.taskId);
    this.tasks.set(key, copy(task));
    adjust(this.perOwner, task.owner, 1);
    adjust(this.perServer, task.server, 1);
    adjust(this.bytesPerOwner, task.owner, keptBytes(task));
    if (task.ttlMs !== null && task.ttlMs <= MAX_TIMER_DELAY) {
      const timer = setTimeout(() => this.live(key), task.ttlMs);
      // A stored result must not keep the process alive.
      timer.unref();
      this.timers.set(key, timer);
    }
    return 'created';
  }

  async get(server: string, taskId: string, owner: string): Promise<StoredTask | undefined> {
    const task = this.live(keyOf(server, taskId));
    return task && task.owner === owner ? copy(task) : undefined;
  }

  async update(
    server: string,
    taskId: string,
    change: (task: StoredTask) => StoredTask | undefined,
    maxOwnerBytes = Infinity,
  ): Promise<StoredTask | undefined> {
    const key = keyOf(server, taskId);
    const current = this.live(key);
    if (!current || isTerminalStatus(current.status)) return undefined;
    const next = change(copy(current));
    if (!next) return undefined;
    const stored = keepingIdentity(current, next);
    const added = keptBytes(stored) - keptBytes(current);
    if (added > 0 && (this.bytesPerOwner.get(stored.owner) ?? 0) + added > maxOwnerBytes) throw new TaskResultsFull();
    adjust(this.bytesPerOwner, stored.owner, added);
    this.tasks.set(key, stored);
    return copy(stored);
  }

  async signal(server: string, taskId: string, signal: TaskSignal): Promise<void> {
    for (const listener of [...(this.listeners.get(keyOf(server, taskId)) ?? [])]) {
      try {
        listener(signal);
      } catch (error) {
        // One failing listener must not keep the signal from the others, nor fail the caller's request.
        this.logger.error(`MCP task store: a signal listener of task ${taskId} threw`, error);
      }
    }
  }

  async subscribe(
    server: string,
    taskId: string,
    listener: (signal: TaskSignal) => void,
  ): Promise<() => Promise<void>> {
    const key = keyOf(server, taskId);
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return async () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
    };
  }

  private refusal(task: StoredTask, limits: TaskLimits): TaskCreateOutcome | undefined {
    if ((this.perServer.get(task.server) ?? 0) >= limits.total) return 'total-limit';
    if ((this.perOwner.get(task.owner) ?? 0) >= limits.perOwner) return 'owner-limit';
    const bytes = keptBytes(task);
    if (bytes > 0 && (this.bytesPerOwner.get(task.owner) ?? 0) + bytes > (limits.bytesPerOwner ?? Infinity))
      return 'owner-bytes-limit';
    return undefined;
  }

  private live(key: string): StoredTask | undefined {
    const task = this.tasks.get(key);
    if (!task) return undefined;
    if (this.expired(task)) {
      this.delete(task);
      return undefined;
    }
    const failed = lapsedTask(task, this.now());
    if (!failed) return task;
    this.tasks.set(key, failed);
    adjust(this.bytesPerOwner, task.owner, keptBytes(failed) - keptBytes(task));
    return failed;
  }

  private expired(task: StoredTask): boolean {
    return task.ttlMs !== null && task.createdAt + task.ttlMs <= this.now();
  }

  private dropAllExpired(): void {
    for (const task of [...this.tasks.values()]) if (this.expired(task)) this.delete(task);
  }

  private delete(task: StoredTask): void {
    const key = keyOf(task.server, task.taskId);
    this.tasks.delete(key);
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    adjust(this.perOwner, task.owner, -1);
    adjust(this.perServer, task.server, -1);
    adjust(this.bytesPerOwner, task.owner, -keptBytes(task));
  }
}

// Task ids are base64url, so the last separator splits a key unambiguously whatever the server is named.
function keyOf(server: string, taskId: string): string {
  return `${server}\n${taskId}`;
}

/** Adds `by` (negative to take away) to a count, which leaves the map at zero. */
function adjust(counts: Map<string, number>, key: string, by: number): void {
  if (by === 0) return;
  const count = (counts.get(key) ?? 0) + by;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

/** What an update stores: the changed task, with the identity a change may not touch (id, owner, creation, lifetime). */
export function keepingIdentity(current: StoredTask, next: StoredTask): StoredTask {
  const { taskId, server, owner, createdAt, ttlMs } = current;
  return { ...next, taskId, server, owner, createdAt, ttlMs };
}

/**
 * A shallow copy: what the store hands out or takes in is its own top-level object, so assigning a field never
 * reaches the stored task. Nested values (inputRequests, result, error) are shared, as everywhere in the kernel
 * they are replaced, never changed in place; a full clone per access cost more than the rest of a `tasks/get`.
 */
function copy<T extends object>(value: T): T {
  return { ...value };
}
