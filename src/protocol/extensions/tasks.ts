import { isPlainObject, type JsonRpcRequest } from '../jsonrpc.js';
import { McpError } from '../mcp-error.js';
import type { CallToolResult, InputRequests, MetaObject } from '../mcp-types.js';
import { META_CLIENT_CAPABILITIES } from '../versions.js';

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
  /** The `tools/call` result the task ended with. */
  result?: CallToolResult;
  error?: TaskError;
  _meta?: MetaObject;
}

/** `tools/call` answered with a task: the task's seed state, flat (no `task` wrapper). */
export interface CreateTaskResult extends DetailedTask {
  resultType: 'task';
}

/** The answers of the tasks extension's methods: a created task, a task as it is now, or an empty ack. */
export type TaskResult = CreateTaskResult | DetailedTask | Record<string, never>;

/** Whether the request's own client capabilities declare the tasks extension (each request speaks for itself). */
export function declaresTasksExtension(request: JsonRpcRequest): boolean {
  const meta = request.params?._meta;
  if (!isPlainObject(meta)) return false;
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  return (
    isPlainObject(capabilities) &&
    isPlainObject(capabilities.extensions) &&
    isPlainObject(capabilities.extensions[TASKS_EXTENSION])
  );
}

/** -32021 naming the tasks extension: for `tasks/*` and task notifications from a client without it, and required-task tools. */
export function tasksExtensionRequired(): McpError {
  return McpError.missingCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
}
