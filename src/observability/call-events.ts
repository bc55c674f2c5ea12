import type { RequestId } from '../protocol/jsonrpc.js';
import { outcomeOf, type McpCallInterceptor, type McpCallOutcome } from '../server/mcp-call.js';

/** What a metrics hook receives once per dispatched call. */
export interface McpCallEvent extends McpCallOutcome {
  method: string;
  /** Null for a request refused before its body was read (its method and name come from its headers). */
  requestId: RequestId | null;
  /** The tool or prompt name, when the method names one. */
  name?: string;
  /** The resource URI of a `resources/read`. */
  uri?: string;
  /** Wall time of the call in milliseconds, from dispatch to response. */
  durationMs: number;
}

/**
 * Calls `onCall` after every dispatched call, for counters and histograms (calls, errors, duration per tool).
 * A hook that throws is ignored: metrics must never change an answer.
 */
export function callEventInterceptor(onCall: (event: McpCallEvent) => void): McpCallInterceptor {
  return async (call, next) => {
    const started = performance.now();
    const response = await next();
    const event: McpCallEvent = {
      method: call.method,
      requestId: call.requestId,
      name: call.name,
      uri: call.uri,
      durationMs: performance.now() - started,
      ...outcomeOf(response),
    };
    try {
      onCall(event);
    } catch {
      // A broken metrics hook is the hook's problem, not the caller's.
    }
    return response;
  };
}
