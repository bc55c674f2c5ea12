import type { InputRequests } from './mcp-types.js';

/** The tasks extension (SEP-2663): a `tools/call` may be answered with a task the client polls. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** Completed, failed and cancelled tasks never change again. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

/** The JSON-RPC error a `failed` task carries. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * A task as `tasks/get` and `notifications/tasks` show it: the `Task` fields plus what its status carries
 * (`inputRequests` while input_required, `result` once completed, `error` once failed). Timestamps are ISO 8601.
 */
export interface DetailedTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: InputRequests;
  result?: Record<string, unknown>;
  error?: TaskError;
}
