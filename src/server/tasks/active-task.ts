import type { InputRequest, InputRequests, InputResponse, InputResponses } from '../../protocol/mcp-types.js';
import type { StoredTask, TaskSignal } from './task-store.js';
import type { TaskRun } from '../task-run.js';

/** The store writes an active task makes, applied in order by the runner. */
export interface TaskWriter {
  write(taskId: string, change: (task: StoredTask) => StoredTask | undefined): Promise<void>;
  /** Told of each batch of asks, before its write. */
  asking?(): void;
}

interface Waiter {
  promise: Promise<InputResponse>;
  resolve(value: InputResponse): void;
  reject(reason: unknown): void;
}

/**
 * A task running on this instance: the handler's stop signal, the asks it waits on, and the writes it makes
 * to the store, chained so they land in the order they were made. Asks only add to the stored
 * `inputRequests`; removing answered ones is the job of whichever instance takes the `tasks/update`, so a
 * late write from here never brings an answered request back.
 */
export class ActiveTask implements TaskRun {
  readonly answers: InputResponses;
  /** Keys answered by `tasks/update`: asking one again resolves with its answer, never re-asks. */
  private readonly answered = new Set<string>();
  // Made on first use: most calls answered in place of a task never look at their signal.
  private controller: AbortController | undefined;
  private stopReason: Error | undefined;
  private readonly waiters = new Map<string, Waiter>();
  private fresh: InputRequests | undefined;
  private message: string | undefined;
  private writes: Promise<void>;
  private dropped = false;
  private opened?: () => void;

  constructor(
    readonly taskId: string,
    answers: InputResponses,
    private readonly writer: TaskWriter,
    private readonly now: () => number,
    /**
     * A round of a queued task: an ask is not waited on. The round shows its asks (`input_required`) and ends;
     * the round after the answers runs the handler again with them, wherever a worker takes it.
     */
    private readonly suspends = false,
    /** Not stored yet: writes wait for `release`. */
    held = false,
  ) {
    this.answers = { ...answers };
    this.writes = held ? new Promise((resolve) => (this.opened = resolve)) : Promise.resolve();
  }

  /** A held task's writes go to the store from now on (`stored`), or are dropped: it never will be stored. */
  release(stored: boolean): void {
    this.dropped = !stored;
    this.opened?.();
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.stopReason) this.controller.abort(this.stopReason);
    }
    return this.controller.signal;
  }

  /** True once the round ended to wait for input (a queued task's round): its outcome is not the task's. */
  get suspended(): boolean {
    return this.stopReason instanceof TaskSuspended;
  }

  ask(key: string, request: InputRequest): Promise<InputResponse> {
    if (this.answered.has(key)) return Promise.resolve(this.answers[key]);
    if (this.stopReason) return rejected(this.stopReason);
    const pending = this.waiters.get(key);
    if (pending) return pending.promise;
    let resolve!: (value: InputResponse) => void;
    let reject!: (reason: unknown) => void;
    const promise = new Promise<InputResponse>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    // A handler that awaits one of several asks has moved on when another is rejected by a cancel.
    promise.catch(() => undefined);
    this.waiters.set(key, { promise, resolve, reject });
    if (this.fresh === undefined) {
      this.fresh = {};
      queueMicrotask(() => this.flushAsks());
    }
    this.fresh[key] = request;
    return promise;
  }

  status(message: string): void {
    if (this.stopReason) return;
    // Progress can come faster than the store takes writes: only the latest message waiting is written.
    const queued = this.message !== undefined;
    this.message = message;
    if (queued) return;
    this.enqueue(() => {
      const statusMessage = this.message;
      this.message = undefined;
      return (task) => ({ ...task, statusMessage, lastUpdatedAt: this.now() });
    });
  }

  /** What another instance relayed: answers to resolve, or the cancellation. */
  receive(signal: TaskSignal): void {
    if (signal.type === 'cancel') {
      this.stop(new TaskStopped('The task was cancelled'));
      return;
    }
    for (const [key, value] of Object.entries(signal.responses)) {
      const waiter = this.waiters.get(key);
      if (!waiter) continue;
      this.waiters.delete(key);
      this.answered.add(key);
      this.answers[key] = value;
      waiter.resolve(value);
    }
  }

  /** Stops the handler: its signal fires and every ask it still waits on is rejected. */
  stop(reason: Error): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.controller?.abort(reason);
    for (const waiter of this.waiters.values()) waiter.reject(reason);
    this.waiters.clear();
  }

  /** Queues the terminal write after every write before it; resolves once it has been attempted. */
  finish(change: (task: StoredTask) => StoredTask | undefined): Promise<void> {
    this.enqueue(() => change);
    return this.writes;
  }

  /** Resolves once every write queued so far has been attempted. */
  settled(): Promise<void> {
    return this.writes;
  }

  private flushAsks(): void {
    const asks = this.fresh!;
    this.fresh = undefined;
    this.writer.asking?.();
    this.enqueue(() => (task) => ({
      ...task,
      status: 'input_required',
      inputRequests: { ...task.inputRequests, ...asks },
      lastUpdatedAt: this.now(),
    }));
    if (this.suspends) this.stop(new TaskSuspended());
  }

  /** `changeFor` runs when the write's turn comes, so the change is built from what is current then. */
  private enqueue(changeFor: () => (task: StoredTask) => StoredTask | undefined): void {
    this.writes = this.writes.then(() => (this.dropped ? undefined : this.writer.write(this.taskId, changeFor())));
  }
}

/** Why a task's handler was stopped: cancelled by the client, expired, or the server closing. */
export class TaskStopped extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskStopped';
  }
}

/** Ends a queued task's round at its asks: the next round runs with the answers. */
export class TaskSuspended extends TaskStopped {
  constructor() {
    super('The round waits for input');
    this.name = 'TaskSuspended';
  }
}

function rejected(reason: unknown): Promise<never> {
  const promise = Promise.reject(reason);
  promise.catch(() => undefined);
  return promise;
}
