import { isPlainObject } from '../../protocol/jsonrpc.js';
import { TASKS_EXTENSION } from '../../protocol/extensions/tasks.js';
import type { ClientCapabilities, InputRequests, InputResponses } from '../../protocol/mcp-types.js';
import { InputRequired } from '../input-required.js';
import type { McpContext } from '../mcp-context.js';

/** Where a 2026-07-28 upstream's round stands, sealed into the caller's round: its state and what it asked. */
export interface ModernRoundState {
  upstreamState?: string;
  upstreamAsked: string[];
}

/** What a 2026-07-28 upstream answers a request with when it needs input (the SDK's manual mode). */
interface UpstreamInputRequired {
  resultType: 'input_required';
  inputRequests?: InputRequests;
  requestState?: string;
}

/** A round that carries only `requestState` is sent again at once; a server that keeps doing so is stopped. */
const MAX_BARE_ROUNDS = 8;

/**
 * A mounted call to a 2026-07-28 upstream, statelessly: the upstream's `input_required` becomes the caller's
 * (its questions under their own keys, its `requestState` sealed into the gateway's own), and the caller's
 * retry carries the answers and that state back. No round is kept in memory, so any instance serves any
 * round. Inside a task, the questions wait for `tasks/update` and the call goes on at once.
 */
export async function modernRounds<T>(
  ctx: McpContext,
  send: (extra: { inputResponses?: InputResponses; requestState?: string }) => Promise<T | UpstreamInputRequired>,
): Promise<T> {
  const sealed = ctx.state as Partial<ModernRoundState> | undefined;
  let requestState = sealed?.upstreamState;
  // A first call may carry answers already (a client that knows the questions); a retry answers what was asked.
  let inputResponses: InputResponses | undefined = Array.isArray(sealed?.upstreamAsked)
    ? pick(ctx.inputResponses, sealed.upstreamAsked)
    : ctx.inputResponses;
  for (let bare = 0; ;) {
    const answered = Object.keys(inputResponses ?? {}).length > 0;
    const result = await send({
      ...(answered ? { inputResponses } : {}),
      ...(requestState !== undefined ? { requestState } : {}),
    });
    if (!isInputRequired(result)) return result;
    const asked = result.inputRequests ?? {};
    requestState = result.requestState;
    inputResponses = undefined;
    if (Object.keys(asked).length === 0) {
      if (++bare > MAX_BARE_ROUNDS) throw new Error(`it asked for input ${MAX_BARE_ROUNDS} times without a question`);
      continue;
    }
    if (ctx.taskId === undefined) {
      const state: ModernRoundState = { upstreamAsked: Object.keys(asked) };
      if (requestState !== undefined) state.upstreamState = requestState;
      throw new InputRequired(asked, { state });
    }
    inputResponses = await ctx.requestInputs(asked);
  }
}

/**
 * The capabilities a 2026-07-28 upstream is told the caller has, so it asks only what the caller can answer:
 * the caller's own, but for the tasks extension (a task is the gateway's, and the official client does not
 * follow an upstream's). Undefined when the caller's are unknown (a 2025-era caller without a session).
 */
export function forwardedCapabilities(ctx: McpContext): ClientCapabilities | undefined {
  const declared = ctx.clientCapabilities;
  if (!declared || !isPlainObject(declared.extensions) || !(TASKS_EXTENSION in declared.extensions)) return declared;
  const extensions = { ...declared.extensions };
  delete extensions[TASKS_EXTENSION];
  return { ...declared, extensions };
}

function isInputRequired(result: unknown): result is UpstreamInputRequired {
  return isPlainObject(result) && result.resultType === 'input_required';
}

function pick(answers: InputResponses, keys: string[]): InputResponses {
  const picked: InputResponses = {};
  for (const key of keys) if (Object.hasOwn(answers, key)) picked[key] = answers[key];
  return picked;
}
