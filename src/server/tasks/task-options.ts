import { McpConfigurationError } from '../errors/configuration-error.js';
import {
  NOT_POSITIVE_INTEGER,
  TASK_IMMEDIATE_RESULT_OUT_OF_RANGE,
  TASK_LEASE_OUT_OF_RANGE,
  TASK_TTL_TOO_LONG,
} from '../errors/configuration-messages.js';
import type { TaskQueue } from './task-queue.js';
import type { TaskLimits, TaskStore } from './task-store.js';

// Timers cannot wait longer (about 24.8 days): the handler is stopped by one at expiry, and renewed by another.
const MAX_TIMER_DELAY = 2 ** 31 - 1;
// Under a second, an event loop busy for a few hundred milliseconds would already fail healthy tasks.
const MIN_LEASE_MS = 1_000;
// The caller's request stays open through the window: past a minute, clients and proxies start giving up on it,
// and the handlers running in it are not yet counted against any task limit.
const MAX_IMMEDIATE_RESULT_MS = 60_000;

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
  /**
   * Most bytes one caller's tasks may keep at once: their results, and the calls of queued tasks (arguments,
   * `_meta`, principal, answers) until they end. A call past it is refused (-32603, `data.reason: "task_limit"`),
   * a result past it ends its task `failed`. Default 16 MiB.
   */
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
  /**
   * How long a call to a tool with optional task support may run and still be answered with its result: a
   * client that declares the extension gets the result itself (nothing is stored) when the handler settles
   * within this window without asking for input; otherwise the call becomes a task the handler goes on in.
   * `0` (the default) answers directly only what is ready by the next turn of the event loop (no timer or I/O
   * waited on); up to 60 000, and under `limits.callTimeoutMs`. `false` makes every such call a task. Tools
   * with required task support are always tasks, and so is every call with `queue` (its handler runs on a
   * worker, not here).
   */
  immediateResultMs?: number | false;
}

/** The options' values, checked, with their defaults. */
export function taskSettings(options: TaskOptions) {
  const ttlMs = positiveInteger(options.ttlMs ?? 300_000, 'tasks.ttlMs');
  if (ttlMs > MAX_TIMER_DELAY) throw new McpConfigurationError(TASK_TTL_TOO_LONG(MAX_TIMER_DELAY, ttlMs));
  const pollIntervalMs = positiveInteger(options.pollIntervalMs ?? 1_000, 'tasks.pollIntervalMs');
  const limits: Required<TaskLimits> = {
    perOwner: positiveInteger(options.maxTasksPerCaller ?? 100, 'tasks.maxTasksPerCaller'),
    total: positiveInteger(options.maxTasks ?? 10_000, 'tasks.maxTasks'),
    bytesPerOwner: 0,
  };
  const maxResultBytes = positiveInteger(options.maxResultBytes ?? 1024 * 1024, 'tasks.maxResultBytes');
  limits.bytesPerOwner = positiveInteger(
    options.maxResultBytesPerCaller ?? 16 * 1024 * 1024,
    'tasks.maxResultBytesPerCaller',
  );
  const leaseMs = options.leaseMs ?? 15_000;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < MIN_LEASE_MS || leaseMs > MAX_TIMER_DELAY)
    throw new McpConfigurationError(TASK_LEASE_OUT_OF_RANGE(MIN_LEASE_MS, MAX_TIMER_DELAY, options.leaseMs));
  const immediate = options.immediateResultMs ?? 0;
  if (immediate !== false && (!Number.isSafeInteger(immediate) || immediate < 0 || immediate > MAX_IMMEDIATE_RESULT_MS))
    throw new McpConfigurationError(TASK_IMMEDIATE_RESULT_OUT_OF_RANGE(MAX_IMMEDIATE_RESULT_MS, immediate));
  // Undefined: no shortcut. The queue runs every handler on a worker, so none can settle in this request.
  const immediateResultMs = immediate === false || options.queue ? undefined : immediate;
  return { ttlMs, pollIntervalMs, limits, maxResultBytes, leaseMs, immediateResultMs };
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new McpConfigurationError(NOT_POSITIVE_INTEGER(name, value));
  return value;
}
