import { ErrorCode } from '../../protocol/error-codes.js';
import type { CallToolResult } from '../../protocol/mcp-types.js';
import type { DetailedTask, TaskError } from '../../protocol/extensions/tasks.js';
import type { StoredTask } from './task-store.js';

/** How a task's work ended: the tool's result (a tool error included, with its size once measured), or a JSON-RPC error. */
export type TaskOutcome = { result: CallToolResult; resultBytes?: number } | { error: TaskError };

/** An outcome that ends a task `failed` with an internal error saying why. */
export function failure(message: string): TaskOutcome {
  return { error: { code: ErrorCode.InternalError, message } };
}

/** The terminal record for an outcome: `completed` with the result, or `failed` with the error. */
export function ended(task: StoredTask, outcome: TaskOutcome, now: number): StoredTask {
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
