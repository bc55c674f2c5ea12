import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '../../protocol/error-codes.js';
import { TASKS_EXTENSION } from '../../protocol/extensions/tasks.js';
import { isPlainObject, type JsonRpcErrorObject } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { CallToolResult, ClientCapabilities, InputRequests } from '../../protocol/mcp-types.js';
import type { McpContext } from '../mcp-context.js';

/** One answer of the upstream to a request made by hand: its result, or its error. */
export type UpstreamAnswer = { result: Record<string, unknown> } | { error: JsonRpcErrorObject };

/** A request of the 2026-07-28 tasks wire to the upstream, made by hand (the official client has none yet). */
export type TaskWire = (
  method: string,
  params: Record<string, unknown>,
  capabilities: ClientCapabilities,
) => Promise<UpstreamAnswer>;

interface UpstreamTaskState {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  inputRequests?: InputRequests;
  result?: CallToolResult;
  error?: JsonRpcErrorObject;
}

/** However slowly the upstream asks to be polled, the gateway's own caller is kept at most this far behind. */
const MAX_POLL_MS = 1_000;

/** Whether an upstream refused a call because the tool runs only as a task (SEP-2663's -32021). */
export function needsTask(error: { code?: number; data?: unknown }): boolean {
  if (error.code !== ErrorCode.MissingRequiredClientCapability || !isPlainObject(error.data)) return false;
  const required = error.data.requiredCapabilities;
  return isPlainObject(required) && isPlainObject(required.extensions) && TASKS_EXTENSION in required.extensions;
}

/**
 * A mounted call that runs as the gateway's task, relayed to a 2026-07-28 upstream whose tool runs only as a
 * task: the call is made there as a task too (the caller's tasks declaration forwarded), and followed until it
 * ends. Its status message becomes the gateway task's, its questions are the gateway task's (`tasks/update`
 * answers them, and the answers go on to the upstream's task), cancelling the gateway task cancels it, and
 * its result or error is the call's.
 */
export async function relayUpstreamTask(
  ctx: McpContext,
  wire: TaskWire,
  call: { name: string; arguments: unknown },
  capabilities: ClientCapabilities,
): Promise<CallToolResult> {
  const send = async (method: string, params: Record<string, unknown>) => {
    const answer = await wire(method, params, capabilities);
    if ('error' in answer) throw new McpError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result;
  };
  const created = await send('tools/call', call);
  if (created.resultType !== 'task') return created as unknown as CallToolResult;
  let task = created as unknown as UpstreamTaskState;
  const taskId = task.taskId;
  const cancel = () => void send('tasks/cancel', { taskId }).catch(() => undefined);
  ctx.signal.addEventListener('abort', cancel, { once: true });
  try {
    for (let step = 1; ; step++) {
      if (task.statusMessage) ctx.reportProgress({ progress: step, message: task.statusMessage });
      switch (task.status) {
        case 'completed':
          return task.result!;
        case 'failed':
          throw new McpError(
            task.error?.code ?? ErrorCode.InternalError,
            task.error?.message ?? 'the upstream task failed',
          );
        case 'cancelled':
          throw new Error('the upstream cancelled its task');
        case 'input_required':
          await send('tasks/update', { taskId, inputResponses: await ctx.requestInputs(task.inputRequests ?? {}) });
          break;
        default:
          // The caller's cancelling ends the wait early; the check below then ends the call.
          await sleep(Math.min(task.pollIntervalMs ?? MAX_POLL_MS, MAX_POLL_MS), undefined, {
            signal: ctx.signal,
          }).catch(() => undefined);
      }
      if (ctx.signal.aborted) throw new Error('the call was cancelled');
      task = (await send('tasks/get', { taskId })) as unknown as UpstreamTaskState;
    }
  } finally {
    ctx.signal.removeEventListener('abort', cancel);
  }
}
