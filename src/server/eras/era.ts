import type { JsonRpcRequest, JsonRpcResponse } from '../../protocol/jsonrpc.js';
import type { InputRequiredResult, McpResult, MetaObject } from '../../protocol/mcp-types.js';
import type { TaskResult } from '../../protocol/extensions/tasks.js';
import type { EventsResult } from '../../protocol/extensions/events.js';
import type { InterimResult, MethodResult } from '../method-result.js';

/** What an era may add to every result it presents. */
export interface EraFields {
  resultType?: string;
  _meta?: MetaObject;
}

/**
 * A family's answer as an era sends it: the typed result (with the era's fields), or, in an era whose leg turns
 * interim results into requests of its own (2025-era), the `InterimResult` handed back for the leg to take.
 */
export type PresentedResult =
  ((McpResult | TaskResult | EventsResult | InputRequiredResult) & EraFields) | InterimResult;

/**
 * What one protocol revision (or a family of them) adds around the method families: its version rung, the
 * methods it does not have, and the shape of its results. The kernel dispatches every request in one era;
 * the families never know which.
 */
export interface McpEra {
  /** The version rung for a request that passed the message rung: the error response to send, or undefined. */
  refuse(request: JsonRpcRequest): JsonRpcResponse | undefined;
  /** Methods of the table this era does not have: answered -32601 like any unknown method. */
  removed(method: string): boolean;
  /** A family's answer as this era's `result` object (it may reuse the answer's objects). */
  present(answer: MethodResult): PresentedResult;
}
