import { ErrorCode } from '../../protocol/error-codes.js';
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import { primitiveName } from '../../protocol/routed-name.js';
import { CallContext } from '../call-context.js';
import type { HandlerErrorPolicy } from './handler-error-policy.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { ToolError } from '../errors/tool-error.js';

/** What the client reads of an unexpected handler error, and where the interceptors' call learns of it. */
export class HandlerFailure {
  constructor(
    private readonly policy: HandlerErrorPolicy,
    private readonly newId: () => string,
  ) {}

  /** The client's text for an error a handler threw; the interceptors' call learns the error and its id. */
  message(error: unknown, request: JsonRpcRequest, name: string | undefined, transport: McpRequestContext): string {
    const call = transport instanceof CallContext ? transport.call : undefined;
    const correlationId = this.newId();
    if (call && !(error instanceof ToolError)) {
      call.error = error;
      call.correlationId = correlationId;
    }
    return this.policy.clientMessage(error, { method: request.method, name, requestId: request.id }, correlationId);
  }

  /** A prompt or resource handler's error as the JSON-RPC error to answer with (an `McpError` passes as it is). */
  toMcpError(error: unknown, request: JsonRpcRequest, transport: McpRequestContext): McpError {
    if (error instanceof McpError) return error;
    const name = primitiveName(request);
    return new McpError(ErrorCode.InternalError, `Error: ${this.message(error, request, name, transport)}`);
  }
}
