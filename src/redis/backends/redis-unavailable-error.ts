import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';

/**
 * A command Redis did not carry out: not connected, too many commands already waiting, no answer in time, or an
 * error reply. An `McpError`, so the call that needed Redis ends with a JSON-RPC -32603 saying so instead of a
 * bare "Internal error" or a hang; the Redis error, when there is one, is the `cause`.
 */
export class McpRedisUnavailableError extends McpError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.InternalError, message);
    this.name = 'McpRedisUnavailableError';
    if (options && 'cause' in options) this.cause = options.cause;
  }
}
