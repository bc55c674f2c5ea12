import { randomBytes } from 'node:crypto';
import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { CallToolResult, InputRequest, InputResponses } from '../../protocol/mcp-types.js';
import { isTerminalStatus, type CreateTaskResult, type DetailedTask, type TaskError } from '../../protocol/tasks.js';
import { ActiveTask, TaskStopped, type TaskRun } from './active-task.js';
import { consoleLogger, type McpLogger } from '../mcp-logger.js';
import type { Caller } from '../access/caller-identity.js';
import { taskOwner } from './task-owner.js';
import { InMemoryTaskStore, TaskResultsFull, type StoredTask, type TaskLimits, type TaskStore } from './task-store.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { NOT_POSITIVE_INTEGER, TASK_LEASE_OUT_OF_RANGE, TASK_TTL_TOO_LONG } from '../errors/configuration-messages.js';

/** How tools called as tasks (SEP-2663) are kept and bounded. */
export interface TaskOptions {
  /** Where tasks live; share one between instances (e.g. Redis) so any of them can answer about any task. In memory by default. */
  store?: TaskStore;
  /** How long a task and its result are kept, from its creation; the handler is stopped then too. Default 5 minutes. */
  ttlMs?: number;
  /** How often clients are asked to poll `tasks/get`. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Most tasks kept at once for one caller (its caller identity; all unauthenticated callers are one). Default 100. */
  maxTasksPerCaller?: number;
  /** Most tasks kept at once in all. Default 10 000. */
  maxTasks?: number;
  /** Largest result one task may keep, in bytes of JSON; a bigger one ends the task `failed`. Default 1 MiB. */
  maxResultBytes?: number;
  /** Most bytes of results one caller's tasks may keep at once; a result past it ends its task `failed`. Default 16 MiB. */
  maxResultBytesPerCaller?: number;
  /**
   * How long a running task stays alive in the store without word from the instance running it, which renews
   * it every third of this. A task whose instance dies (or stalls, or loses the store) this long ends `failed`
   * with a message saying its instance was lost. Default 15 000 ms; at least 1 000.
   */
  leaseMs?: number;
}

/** How a task's work ended: the tool's result (a tool error included, with its size once measured), or a JSON-RPC error. */
export type TaskOutcome = { result: CallToolResult; resultBytes?: number } | { error: TaskError };

function failure(message: string): TaskOutcome {
  return { error: { code: ErrorCode.InternalError, message } };
}

/** Whether a value is a valid answer to an input request (the kernel checks it against the requested schema). */
export type AnswerCheck = (request: InputRequest, value: unknown) => boolean;

const NOT_FOUND = 'Failed to retrieve task: Task not found';
const MAX_TIMER_DELAY = 2 ** 31 - 1;
// Renewed at a third of the lease, so one late or failed renewal still leaves another before it lapses; under a
// second, an event loop busy for a few hundred milliseconds would already fail healthy tasks.
const RENEWALS_PER_LEASE = 3;
const MIN_LEASE_MS = 1_000;
const LEASE_LOST = 'The task was ended failed by another instance: this one did not renew its lease in time';

/**
 * Runs tool calls as tasks and answers `tasks/get`, `tasks/update` and `tasks/cancel` about them, on whichever
 * instance they arrive: everything about a task is in the store, and the instance running it learns of answers
 * and cancellation through the store's signals. Terminal statuses are final because the store refuses to
 * change them, so a result that lands after a cancel, or a cancel after a result, changes nothing.
 */
export class TaskRunner {
  readonly store: TaskStore;
  private readonly ttlMs: number;
  private readonly pollIntervalMs: number;
  private readonly limits: TaskLimits;
  private readonly maxResultBytes: number;
  private readonly maxResultBytesPerCaller: number;
  private readonly leaseMs: number;
  private readonly active = new Map<string, ActiveTask>();
  private readonly renewing = new Set<string>();

  constructor(
    /** The server's name: its tasks are its own in a store other servers share. */
    private readonly server: string,
    options: TaskOptions = {},
    /** Called with every state a task reaches, for `notifications/tasks`. */
    private readonly published: (owner: string, task: DetailedTask) => void,
    private readonly logger: McpLogger = consoleLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.store = options.store ?? new InMemoryTaskStore(now, logger);
    this.ttlMs = positiveInteger(options.ttlMs ?? 300_000, 'tasks.ttlMs');
    // The handler is stopped by a timer at expiry, and a timer cannot wait longer (about 24.8 days).
    if (this.ttlMs > MAX_TIMER_DELAY) throw new McpConfigurationError(TASK_TTL_TOO_LONG(MAX_TIMER_DELAY, this.ttlMs));
    this.pollIntervalMs = positiveInteger(options.pollIntervalMs ?? 1_000, 'tasks.pollIntervalMs');
    this.limits = {
      perOwner: positiveInteger(options.maxTasksPerCaller ?? 100, 'tasks.maxTasksPerCaller'),
      total: positiveInteger(options.maxTasks ?? 10_000, 'tasks.maxTasks'),
    };
    this.maxResultBytes = positiveInteger(options.maxResultBytes ?? 1024 * 1024, 'tasks.maxResultBytes');
    this.maxResultBytesPerCaller = positiveInteger(
      options.maxResultBytesPerCaller ?? 16 * 1024 * 1024,
      'tasks.maxResultBytesPerCaller',
    );
    this.leaseMs = options.leaseMs ?? 15_000;
    if (!Number.isSafeInteger(this.leaseMs) || this.leaseMs < MIN_LEASE_MS || this.leaseMs > MAX_TIMER_DELAY)
      throw new McpConfigurationError(TASK_LEASE_OUT_OF_RANGE(MIN_LEASE_MS, MAX_TIMER_DELAY, options.leaseMs));
  }

  /**
   * Creates a task for `caller` and starts `work` in it. Resolves with the `CreateTaskResult` once the store
   * has the task (so a `tasks/get` on any instance finds it) and this instance listens for its signals.
   */
  async start(
    caller: Caller,
    answers: InputResponses,
    work: (run: TaskRun) => Promise<TaskOutcome>,
  ): Promise<CreateTaskResult> {
    const owner = taskOwner(this.server, caller);
    if (owner === undefined)
      throw new McpError(
        ErrorCode.InternalError,
        'Internal error: a task cannot be owned by a principal without identity (give it an identifying member, e.g. sub)',
      );
    const createdAt = this.now();
    const record: StoredTask = {
      taskId: randomBytes(18).toString('base64url'),
      server: this.server,
      owner,
      createdAt,
      lastUpdatedAt: createdAt,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      status: 'working',
      leaseExpiresAt: createdAt + this.leaseMs,
    };
    const task = new ActiveTask(
      record.taskId,
      answers,
      { write: (taskId, change) => this.write(owner, taskId, change, this.maxResultBytesPerCaller) },
      this.now,
    );
    const [outcome, unsubscribe] = await Promise.all([
      this.store.create(record, this.limits),
      this.store.subscribe(this.server, record.taskId, (signal) => task.receive(signal)),
    ]);
    if (outcome !== 'created') {
      await unsubscribe();
      const whose = outcome === 'owner-limit' ? 'this caller has' : 'the server has';
      throw new McpError(
        ErrorCode.InternalError,
        `Too many tasks: ${whose} as many as it may keep; retry once some have expired`,
        { reason: 'task_limit' },
      );
    }
    this.active.set(record.taskId, task);
    const expiry = setTimeout(
      () => task.stop(new TaskStopped('The task expired')),
      Math.max(createdAt + this.ttlMs - this.now(), 0),
    );
    expiry.unref();
    const heartbeat = setInterval(() => this.renew(task), Math.floor(this.leaseMs / RENEWALS_PER_LEASE));
    heartbeat.unref();
    let released = false;
    // Whichever comes first, the handler settling or the task being stopped: a handler that ignores its signal
    // keeps only its own closure alive, not this instance's subscription, timer or bookkeeping.
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(expiry);
      clearInterval(heartbeat);
      this.active.delete(record.taskId);
      unsubscribe().catch((error: unknown) =>
        this.logger.error(`MCP tasks: unsubscribing from task ${record.taskId} failed`, error),
      );
    };
    task.signal.addEventListener('abort', release, { once: true });
    void this.execute(task, work).finally(release);
    return { resultType: 'task', ...detailedTask(record) };
  }

  /** The task as `tasks/get` shows it. An unknown, expired or foreign id is -32602, all alike. */
  async get(taskId: unknown, caller: Caller): Promise<DetailedTask> {
    return detailedTask(await this.find(taskId, caller));
  }

  /**
   * Takes answers for a task waiting on input: each one that answers an outstanding request (`accepts`) is
   * removed from the stored `inputRequests` and relayed to the instance running the task. Others are ignored.
   */
  async update(taskId: unknown, caller: Caller, responses: InputResponses, accepts: AnswerCheck): Promise<void> {
    const found = await this.find(taskId, caller);
    const asked = found.inputRequests ?? {};
    const offered = Object.entries(responses).filter(
      ([key, value]) => Object.hasOwn(asked, key) && accepts(asked[key], value),
    );
    if (offered.length === 0) return;
    let taken: InputResponses = {};
    const updated = await this.store.update(this.server, found.taskId, (task) => {
      // Only what is still outstanding now: another update may have answered some keys meanwhile.
      taken = Object.fromEntries(
        offered.filter(([key]) => task.inputRequests !== undefined && Object.hasOwn(task.inputRequests, key)),
      );
      if (Object.keys(taken).length === 0) return undefined;
      const left = Object.fromEntries(
        Object.entries(task.inputRequests!).filter(([key]) => !Object.hasOwn(taken, key)),
      );
      const waiting = Object.keys(left).length > 0;
      return {
        ...task,
        status: waiting ? 'input_required' : 'working',
        inputRequests: waiting ? left : undefined,
        lastUpdatedAt: this.now(),
      };
    });
    if (!updated) return;
    this.published(found.owner, detailedTask(updated));
    await this.store.signal(this.server, found.taskId, { type: 'input', responses: taken });
  }

  /** Cancels a task that has not ended (one that has is left as it is) and stops its handler wherever it runs. */
  async cancel(taskId: unknown, caller: Caller): Promise<void> {
    const found = await this.find(taskId, caller);
    if (isTerminalStatus(found.status)) return;
    const updated = await this.store.update(this.server, found.taskId, (task) => ({
      ...task,
      status: 'cancelled',
      statusMessage: 'Cancelled by the client',
      inputRequests: undefined,
      leaseExpiresAt: undefined,
      lastUpdatedAt: this.now(),
    }));
    if (updated) this.published(found.owner, detailedTask(updated));
    await this.store.signal(this.server, found.taskId, { type: 'cancel' });
  }

  /** Stops every task running here; each ends `failed`, since nothing will finish it now. */
  close(): void {
    for (const task of this.active.values()) {
      task.stop(new TaskStopped('The server shut down before the task finished'));
      void task.finish((stored) =>
        ended(
          stored,
          { error: { code: ErrorCode.InternalError, message: 'The server shut down before the task finished' } },
          this.now(),
        ),
      );
    }
  }

  /**
   * Extends the lease of a task running here. A store that no longer has it running (it ended, expired, or
   * another instance found its lease lapsed and failed it) stops the handler, whose result would be ignored.
   * A renewal still under way when the next is due is not doubled: a slow store gets no pile of writes.
   */
  private renew(task: ActiveTask): void {
    if (this.renewing.has(task.taskId)) return;
    this.renewing.add(task.taskId);
    this.store
      .update(this.server, task.taskId, (stored) => ({ ...stored, leaseExpiresAt: this.now() + this.leaseMs }))
      .then(
        (renewed) => {
          if (!renewed) task.stop(new TaskStopped(LEASE_LOST));
        },
        // The store is down: the next renewal tries again, and the lease lapses if none gets through.
        (error: unknown) => this.logger.error(`MCP tasks: renewing the lease of task ${task.taskId} failed`, error),
      )
      .finally(() => this.renewing.delete(task.taskId));
  }

  private async execute(task: ActiveTask, work: (run: TaskRun) => Promise<TaskOutcome>): Promise<void> {
    let outcome: TaskOutcome;
    try {
      outcome = await work(task);
    } catch (error) {
      outcome = {
        error: {
          code: ErrorCode.InternalError,
          message: error instanceof TaskStopped ? error.message : 'Internal error',
        },
      };
    }
    if ('result' in outcome) {
      const bytes = Buffer.byteLength(JSON.stringify(outcome.result));
      outcome =
        bytes > this.maxResultBytes
          ? failure(
              `Task result too large: ${bytes} bytes, over the limit of ${this.maxResultBytes} (tasks.maxResultBytes)`,
            )
          : { result: outcome.result, resultBytes: bytes };
    }
    const ending = outcome;
    await task.finish((stored) => ended(stored, ending, this.now()));
  }

  private async find(taskId: unknown, caller: Caller): Promise<StoredTask> {
    if (typeof taskId !== 'string') throw McpError.invalidParams('Invalid params: "taskId" must be a string');
    const owner = taskOwner(this.server, caller);
    const task = owner === undefined ? undefined : await this.store.get(this.server, taskId, owner);
    if (!task) throw McpError.invalidParams(NOT_FOUND);
    return task;
  }

  private async write(
    owner: string,
    taskId: string,
    change: (task: StoredTask) => StoredTask | undefined,
    maxOwnerResultBytes?: number,
  ): Promise<void> {
    try {
      const updated = await this.store.update(this.server, taskId, change, maxOwnerResultBytes);
      if (updated) this.published(owner, detailedTask(updated));
    } catch (error) {
      if (error instanceof TaskResultsFull) {
        const full = `Task result not kept: this caller's tasks already keep ${this.maxResultBytesPerCaller} bytes of results (tasks.maxResultBytesPerCaller); retry once some have expired`;
        return this.write(owner, taskId, (task) => ended(task, failure(full), this.now()));
      }
      // The store is down: the task keeps its last stored state until it expires, and the log says why.
      this.logger.error(`MCP tasks: a task store write for task ${taskId} failed`, error);
    }
  }
}

/** The terminal record for an outcome: `completed` with the result, or `failed` with the error. */
function ended(task: StoredTask, outcome: TaskOutcome, now: number): StoredTask {
  const next: StoredTask = { ...task, inputRequests: undefined, leaseExpiresAt: undefined, lastUpdatedAt: now };
  if ('result' in outcome)
    return { ...next, status: 'completed', result: outcome.result, resultBytes: outcome.resultBytes };
  return { ...next, status: 'failed', error: outcome.error, statusMessage: outcome.error.message };
}

/** The wire shape of a stored task: what its status carries and nothing else (no owner, no leftovers). */
export function detailedTask(task: StoredTask): DetailedTask {
  const wire: DetailedTask = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
  };
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) wire.pollIntervalMs = task.pollIntervalMs;
  if (task.status === 'input_required') wire.inputRequests = task.inputRequests ?? {};
  else if (task.status === 'completed') wire.result = task.result ?? { content: [] };
  else if (task.status === 'failed')
    wire.error = task.error ?? { code: ErrorCode.InternalError, message: 'Internal error' };
  return wire;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new McpConfigurationError(NOT_POSITIVE_INTEGER(name, value));
  return value;
}
