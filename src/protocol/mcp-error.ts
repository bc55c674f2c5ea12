import { ErrorCode, type RateLimitedData } from './error-codes.js';

/**
 * A protocol error: thrown anywhere below the kernel (by the kernel itself, a registry or a tool), it becomes
 * a JSON-RPC error response with exactly this code, message and data, instead of an `isError` tool result.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'McpError';
  }

  static invalidParams(message: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, message, data);
  }

  /** The spec's "no such resource": -32602 with the URI (-32002 is retired). */
  static resourceNotFound(uri: string): McpError {
    return McpError.invalidParams(`Resource not found: ${uri}`, { uri });
  }

  /**
   * Come back later (-32023, HTTP 429 with `Retry-After`): `retryAfterMs` is rounded up to a whole, positive
   * number of milliseconds; `limit` and `remaining` describe the budget when there is one, and any other member
   * says more (a `reason`).
   */
  static rateLimited(message: string, data: RateLimitedData & Record<string, unknown>): McpError {
    const retryAfterMs = Math.max(1, Math.ceil(data.retryAfterMs));
    return new McpError(ErrorCode.RateLimited, message, { ...data, retryAfterMs });
  }

  static methodNotFound(method: string, data?: unknown): McpError {
    return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`, data);
  }

  static missingCapabilities(requiredCapabilities: Record<string, unknown>): McpError {
    const names = Object.keys(requiredCapabilities).join(', ');
    return new McpError(
      ErrorCode.MissingRequiredClientCapability,
      `Server requires the ${names} client capabilit${Object.keys(requiredCapabilities).length > 1 ? 'ies' : 'y'} for this request`,
      { requiredCapabilities },
    );
  }
}
