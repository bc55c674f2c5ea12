import type { JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { MethodResult } from './method-result.js';

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
  present(answer: MethodResult): Record<string, unknown>;
}
