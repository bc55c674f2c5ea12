import type { TaskQueue } from './task-queue.js';
import type { TaskStore } from './task-store.js';

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
  /**
   * Run the work of tasks on this job queue instead of in the process that created them (`nestjs-mcp/bullmq`
   * provides one). Needs a store shared with the workers. Default: in this process.
   */
  queue?: TaskQueue;
}
