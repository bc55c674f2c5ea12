import type { RequestId } from '../../protocol/jsonrpc.js';
import type { InputResponses, MetaObject } from '../../protocol/mcp-types.js';

/**
 * One round of a task to run on a job queue: which task (the rest is in the store, under `StoredTask.call`) and
 * which round of it, so that a queue can tell the jobs of one task apart (`round` is the number of answers the
 * task had when the round was queued: each round adds at least one).
 */
export interface QueuedTask {
  readonly server: string;
  readonly taskId: string;
  readonly owner: string;
  /** The tool the task calls, for a queue's dashboards (the store has the same name under `call.tool`). */
  readonly tool: string;
  readonly round: number;
}

/**
 * The call a queued task runs, kept with the task in the store, so that whichever instance takes the last
 * answer of an input round can queue the next one, and a worker can run it with nothing but the task's id.
 */
export interface TaskCall {
  readonly tool: string;
  /** The arguments as the client sent them; the worker checks them again against the tool's inputSchema. */
  readonly arguments: Record<string, unknown>;
  /** The creating request's `_meta`: its protocol version, client capabilities and client info. */
  readonly meta: MetaObject;
  readonly requestId: RequestId;
  /** The verified principal of the caller, as JSON: what the handler's guards and `ctx.principal` see. */
  readonly principal?: unknown;
  /** The tool's own state when the task started (a `deferTask` tool's, from its rounds in the request). */
  readonly state?: unknown;
  /** Every answer the task has: those gathered before it started, and each round's. */
  readonly answers: InputResponses;
}

/**
 * Where the work of tasks runs when it does not run in the process that created them: a job queue (the
 * `nestjs-mcp/bullmq` entry point is one). The instance that creates a task stores it, call included, and adds
 * its first round; the instance that takes the last answer of an input round adds the next; a worker takes a
 * round and hands it to `McpKernel.runQueuedTask`. Tasks then need a store every instance and worker shares.
 */
export interface TaskQueue {
  /** Adds a round; resolves once the queue holds it. Adding a round it holds already changes nothing. */
  add(task: QueuedTask): Promise<void>;
}

/** The status message and error of a queued task whose worker was lost and whose tool may not be run again. */
export const WORKER_LOST =
  'Task failed: the worker running it was lost (it crashed, was killed or stalled), and the tool is not declared safe to run again (retry)';
