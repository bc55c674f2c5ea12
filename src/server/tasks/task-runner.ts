import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { InputRequest, InputResponses } from '../../protocol/mcp-types.js';
import { isTerminalStatus, type CreateTaskResult, type DetailedTask } from '../../protocol/extensions/tasks.js';
import { ActiveTask, TaskStopped } from './active-task.js';
import type { TaskRun } from '../task-run.js';
import { consoleLogger, type McpLogger } from '../mcp-logger.js';
import type { Caller } from '../access/caller-identity.js';
import { ownerOf, taskOwner } from './task-owner.js';
import { newTaskId } from './task-ids.js';
import { detailedTask, ended, failure, keepsTooMuch, overShare, refuseOver, type TaskOutcome } from './task-records.js';
import { callVerifies, withCall, withCallChanged, type RecordSigner } from './task-calls.js';
import { RequestStateCodec } from '../input/request-state-codec.js';
import { WORKER_LOST, type QueuedTask, type TaskCall, type TaskQueue } from './task-queue.js';
import { taskSettings, type TaskOptions } from './task-options.js';
import {
  DROPPED_CALL,
  InMemoryTaskStore,
  TaskResultsFull,
  type StoredTask,
  type TaskLimits,
  type TaskStore,
} from './task-store.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { TASK_QUEUE_NEEDS_SECRET } from '../errors/configuration-messages.js';
import type { McpEventBus } from '../events/event-bus.js';

/** The work of a task (a round of it, on a queue), run with what the task lets it do. */
type TaskWork = (run: TaskRun) => Promise<TaskOutcome>;

/** A change to a task's record, as `TaskStore.update` applies it. */
type Change = (task: StoredTask) => StoredTask | undefined;

/** Whether a value is a valid answer to an input request (the kernel checks it against the requested schema). */
export type AnswerCheck = (request: InputRequest, value: unknown) => boolean;

const NOT_FOUND = 'Failed to retrieve task: Task not found';
// Renewed at a third of the lease, so one late or failed renewal still leaves another before it lapses.
const RENEWALS_PER_LEASE = 3;
const QUEUE_REFUSED = 'Internal error: the task could not be queued';
const LEASE_LOST = 'The task was ended failed by another instance: this one did not renew its lease in time';
const CALL_UNVERIFIED =
  'Task failed: its stored call does not verify (signed under another requestState.secret, or changed in the store); the tool was not run';

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
  private readonly limits: Required<TaskLimits>;
  private readonly maxResultBytes: number;
  private readonly leaseMs: number;
  private readonly queue: TaskQueue | undefined;
  private readonly announceOn: McpEventBus | undefined;
  /** `tasks.immediateResultMs`, undefined when calls to optional-task tools are always tasks. */
  readonly immediateResultMs: number | undefined;
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
    /** Signs the calls of queued tasks and checks them on the worker: `requestState.secret`'s codec. */
    private readonly signer: RecordSigner = new RequestStateCodec(),
    /** The bus `published` reaches: a store that can announces on it in its writes, and `published` is not called. */
    bus?: McpEventBus,
  ) {
    this.store = options.store ?? new InMemoryTaskStore(now, logger);
    this.announceOn = bus && this.store.announces?.(bus) ? bus : undefined;
    ({
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      limits: this.limits,
      maxResultBytes: this.maxResultBytes,
      leaseMs: this.leaseMs,
      immediateResultMs: this.immediateResultMs,
    } = taskSettings(options));
    this.queue = options.queue;
    // A key drawn at start-up signs what no other process can verify: the worker would refuse every call.
    if (this.queue && signer.generatedSecret) throw new McpConfigurationError(TASK_QUEUE_NEEDS_SECRET);
  }

  /** Whether the work of tasks runs on a job queue (`tasks.queue`) rather than in this process. */
  get queued(): boolean {
    return this.queue !== undefined;
  }

  /**
   * Creates a task for `caller` and starts `work` in it. Resolves with the `CreateTaskResult` once the store
   * has the task (so a `tasks/get` on any instance finds it) and this instance listens for its signals.
   */
  start(caller: Caller, answers: InputResponses, work: TaskWork): Promise<CreateTaskResult> {
    return this.adopt(caller, this.prepare(answers), work);
  }

  /**
   * A task not stored yet: its work may run at once, its writes (status, asks) wait for `adopt`
   * or are dropped (`release(false)`). `asking` hears of each batch of asks it makes.
   */
  prepare(answers: InputResponses, asking?: () => void): ActiveTask {
    return new ActiveTask(newTaskId(), answers, { write: this.writer, asking }, this.now, false, true);
  }

  /** Stores a prepared task and runs `work` in it (begun already, maybe), as `start` does; refused, it is dropped. */
  async adopt(caller: Caller, task: ActiveTask, work: TaskWork): Promise<CreateTaskResult> {
    const record = this.newRecord(ownerOf(this.server, caller), task.taskId);
    record.leaseExpiresAt = record.createdAt + this.leaseMs;
    try {
      const [outcome, unsubscribe] = await Promise.all([
        this.store.create(record, this.limits),
        this.store.subscribe(this.server, record.taskId, (signal) => task.receive(signal)),
      ]);
      if (outcome !== 'created') await unsubscribe();
      refuseOver(outcome, this.limits.bytesPerOwner);
      task.release(true);
      void this.launch(task, record.createdAt, unsubscribe, true, work);
    } catch (error) {
      task.release(false);
      task.stop(new TaskStopped('The task could not be created'));
      throw error;
    }
    return { resultType: 'task', ...detailedTask(record) };
  }

  /**
   * Creates a task whose work runs on the queue: stored with its call (which needs no lease: the queue knows
   * when a worker is lost), then its first round queued. Resolves once the queue holds it.
   */
  async enqueue(caller: Caller, call: TaskCall): Promise<CreateTaskResult> {
    const owner = ownerOf(this.server, caller);
    const record = withCall(this.newRecord(owner), call, this.signer);
    refuseOver(await this.store.create(record, this.limits), this.limits.bytesPerOwner);
    await this.addRound(record);
    return { resultType: 'task', ...detailedTask(record) };
  }

  /**
   * Runs one round of a queued task (a worker calls this with each job it takes), and resolves once the round
   * has ended and its outcome is stored. A round whose task has ended, expired, or is not at that round any more
   * runs nothing. `restarts` is how often the queue gave this round again after its worker was lost: past the
   * tool's `retry`, the task ends `failed` saying so, rather than running a tool that may not be safe to repeat.
   */
  async runQueued(
    job: QueuedTask,
    restarts: number,
    prepare: (call: TaskCall) => { retry: number; work: TaskWork },
  ): Promise<void> {
    if (job.server !== this.server) return;
    const stored = await this.store.get(this.server, job.taskId, job.owner);
    const call = stored?.call;
    if (!call || stored.status !== 'working' || Object.keys(call.answers).length !== job.round) return;
    if (!callVerifies(stored, this.signer) || call.tool !== job.tool) {
      this.logger.error(
        `MCP tasks: refused to run task ${job.taskId}: its stored call fails its MAC check or names another tool than its job (the web instances and workers do not share requestState.secret, or someone changed the record in the store)`,
      );
      await this.write(job.taskId, (task) => ended(task, failure(CALL_UNVERIFIED), this.now()));
      return;
    }
    const { retry, work } = prepare(call);
    if (restarts > retry) {
      await this.write(job.taskId, (task) => ended(task, failure(WORKER_LOST), this.now()));
      return;
    }
    const task = new ActiveTask(job.taskId, call.answers, { write: this.writer }, this.now, true);
    const unsubscribe = await this.store.subscribe(this.server, job.taskId, (signal) => task.receive(signal));
    await this.launch(task, stored.createdAt, unsubscribe, false, work);
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
    const updated = await this.answered(found.taskId, (task) => {
      // Only what is still outstanding now: another update may have answered some keys meanwhile.
      taken = Object.fromEntries(
        offered.filter(([key]) => task.inputRequests !== undefined && Object.hasOwn(task.inputRequests, key)),
      );
      if (Object.keys(taken).length === 0) return undefined;
      const left = Object.fromEntries(
        Object.entries(task.inputRequests!).filter(([key]) => !Object.hasOwn(taken, key)),
      );
      const waiting = Object.keys(left).length > 0;
      const next: StoredTask = {
        ...task,
        status: waiting ? 'input_required' : 'working',
        inputRequests: waiting ? left : undefined,
        lastUpdatedAt: this.now(),
      };
      // A queued task keeps its answers: its next round runs the handler again with all of them.
      if (!task.call) return next;
      return withCallChanged(next, { ...task.call, answers: { ...task.call.answers, ...taken } }, this.signer);
    });
    if (!updated) return;
    if (updated.call && this.queue) {
      if (updated.status === 'working') await this.addRound(updated);
      return;
    }
    await this.store.signal(this.server, found.taskId, { type: 'input', responses: taken });
  }

  /** Cancels a task that has not ended (one that has is left as it is) and stops its handler wherever it runs. */
  async cancel(taskId: unknown, caller: Caller): Promise<void> {
    const found = await this.find(taskId, caller);
    if (isTerminalStatus(found.status)) return;
    await this.stored(found.taskId, (task) => ({
      ...task,
      status: 'cancelled',
      statusMessage: 'Cancelled by the client',
      inputRequests: undefined,
      leaseExpiresAt: undefined,
      lastUpdatedAt: this.now(),
      ...DROPPED_CALL,
    }));
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

  private async execute(task: ActiveTask, work: TaskWork): Promise<void> {
    let outcome: TaskOutcome;
    try {
      outcome = await work(task);
    } catch (error) {
      outcome = failure(error instanceof TaskStopped ? error.message : 'Internal error');
    }
    // The round ended at its asks: the task waits for them, and the next round brings its outcome.
    if (task.suspended) return task.settled();
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

  private newRecord(owner: string, taskId = newTaskId()): StoredTask {
    const createdAt = this.now();
    return {
      taskId,
      server: this.server,
      owner,
      createdAt,
      lastUpdatedAt: createdAt,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      status: 'working',
    };
  }

  private readonly writer = (taskId: string, change: Change) => this.write(taskId, change, this.limits.bytesPerOwner);

  /**
   * Runs `work` in a task this instance now listens to, until it settles or is stopped (cancelled, expired,
   * the server closing; with a lease, lost to another instance). Resolves once the outcome is stored.
   */
  private launch(
    task: ActiveTask,
    createdAt: number,
    unsubscribe: () => Promise<void>,
    lease: boolean,
    work: TaskWork,
  ): Promise<void> {
    this.active.set(task.taskId, task);
    const expiry = setTimeout(
      () => task.stop(new TaskStopped('The task expired')),
      Math.max(createdAt + this.ttlMs - this.now(), 0),
    );
    expiry.unref();
    const heartbeat = lease
      ? setInterval(() => this.renew(task), Math.floor(this.leaseMs / RENEWALS_PER_LEASE))
      : undefined;
    heartbeat?.unref();
    let released = false;
    // Whichever comes first, the handler settling or the task being stopped: a handler that ignores its signal
    // keeps only its own closure alive, not this instance's subscription, timer or bookkeeping.
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(expiry);
      clearInterval(heartbeat);
      this.active.delete(task.taskId);
      unsubscribe().catch((error: unknown) =>
        this.logger.error(`MCP tasks: unsubscribing from task ${task.taskId} failed`, error),
      );
    };
    task.signal.addEventListener('abort', release, { once: true });
    return this.execute(task, work).finally(release);
  }

  /** Queues the task's next round; a queue that refuses it ends the task `failed`, and the request with -32603. */
  private async addRound(task: StoredTask): Promise<void> {
    const call = task.call!;
    const round = { server: this.server, taskId: task.taskId, owner: task.owner, tool: call.tool };
    try {
      await this.queue!.add({ ...round, round: Object.keys(call.answers).length });
    } catch (error) {
      this.logger.error(`MCP tasks: queueing a round of task ${task.taskId} failed`, error);
      await this.write(task.taskId, (stored) => ended(stored, failure(QUEUE_REFUSED), this.now()));
      throw new McpError(ErrorCode.InternalError, QUEUE_REFUSED);
    }
  }

  /** Stores answers, within the caller's byte share (a queued task keeps them in its call): past it, -32603. */
  private async answered(taskId: string, change: Change) {
    try {
      return await this.stored(taskId, change, this.limits.bytesPerOwner);
    } catch (error) {
      throw error instanceof TaskResultsFull ? overShare(keepsTooMuch(this.limits.bytesPerOwner)) : error;
    }
  }

  /** Stores a change and tells `published` of the record stored, unless the store announced it in the write. */
  private async stored(taskId: string, change: Change, maxOwnerBytes?: number) {
    const updated = await this.store.update(this.server, taskId, change, maxOwnerBytes, this.announceOn);
    if (updated && !this.announceOn) this.published(updated.owner, detailedTask(updated));
    return updated;
  }

  private async find(taskId: unknown, caller: Caller): Promise<StoredTask> {
    if (typeof taskId !== 'string') throw McpError.invalidParams('Invalid params: "taskId" must be a string');
    const owner = taskOwner(this.server, caller);
    const task = owner === undefined ? undefined : await this.store.get(this.server, taskId, owner);
    if (!task) throw McpError.invalidParams(NOT_FOUND);
    return task;
  }

  private async write(taskId: string, change: Change, maxOwnerBytes?: number): Promise<void> {
    try {
      await this.stored(taskId, change, maxOwnerBytes);
    } catch (error) {
      if (error instanceof TaskResultsFull) {
        const full = `Task result not kept: this caller's tasks already keep ${this.limits.bytesPerOwner} bytes of results and queued calls (tasks.maxResultBytesPerCaller); retry once some have expired`;
        return this.write(taskId, (task) => ended(task, failure(full), this.now()));
      }
      // The store is down: the task keeps its last stored state until it expires, and the log says why.
      this.logger.error(`MCP tasks: a task store write for task ${taskId} failed`, error);
    }
  }
}
