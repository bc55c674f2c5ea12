import { ErrorCode } from '../../protocol/error-codes.js';
import type { CallToolResult } from '../../protocol/mcp-types.js';
import type { DetailedTask, TaskError } from '../../protocol/extensions/tasks.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { McpBusEvent } from '../events/event-bus.js';
import { DROPPED_CALL, type StoredTask, type TaskCreateOutcome } from './task-store.js';

/** How a task's work ended: the tool's result (a tool error included, with its size once measured), or a JSON-RPC error. */
export type TaskOutcome = { result: CallToolResult; resultBytes?: number } | { error: TaskError };

/** An outcome that ends a task `failed` with an internal error saying why. */
export function failure(message: string): TaskOutcome {
  return { error: { code: ErrorCode.InternalError, message } };
}

/** The terminal record for an outcome: `completed` with the result, or `failed` with the error. */
export function ended(task: StoredTask, outcome: TaskOutcome, now: number): StoredTask {
  const next: StoredTask = {
    ...task,
    inputRequests: undefined,
    leaseExpiresAt: undefined,
    lastUpdatedAt: now,
    ...DROPPED_CALL,
  };
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

/** The event that tells the owner's listen streams (`notifications/tasks`) of the state a task reached. */
export function statusEvent(task: StoredTask): McpBusEvent {
  return { type: 'tasks/status', owner: task.owner, task: detailedTask(task) };
}

/**
 * The refusal of a caller over its share (or of a server over its total), for a create the store refused or
 * answers that would not fit: come back later (-32023, HTTP 429) with `data.reason: "task_limit"`, whichever limit
 * it is. A slot frees when a kept task expires, which the hint cannot know, so it asks for a minute's wait.
 */
export function overShare(why: string): McpError {
  return McpError.rateLimited(`Too many tasks: ${why}; retry once some have expired`, {
    retryAfterMs: 60_000,
    reason: 'task_limit',
  });
}

/** A create the store refused over a limit; `maxBytes` names the byte share a call would have passed. */
export function refuseOver(outcome: TaskCreateOutcome, maxBytes: number): void {
  if (outcome === 'created') return;
  if (outcome === 'owner-bytes-limit') throw overShare(keepsTooMuch(maxBytes));
  throw overShare(`${outcome === 'owner-limit' ? 'this caller has' : 'the server has'} as many as it may keep`);
}

/** Why a caller's tasks may keep no more bytes. */
export function keepsTooMuch(maxBytes: number): string {
  return `this caller's tasks would keep more than ${maxBytes} bytes of results and queued calls (tasks.maxResultBytesPerCaller)`;
}
