/** JSON-RPC 2.0 message shapes as MCP narrows them (ids are strings or integers, never null). */
export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccessResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  // No `Array.isArray`: an array's prototype is Array.prototype, which the test below already refuses.
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function isValidRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/** The id to echo in an error: the request's own when it is a valid id, otherwise null. */
export function echoableId(message: unknown): RequestId | null {
  if (!isPlainObject(message)) return null;
  return isValidRequestId(message.id) ? message.id : null;
}

export function errorResponse(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcErrorResponse {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: '2.0', id, error };
}

/**
 * The envelope of a typed result (`CallToolResult`, `ListToolsResult`, ...). On the wire, and to the transports that
 * read it, a result is any JSON object; TypeScript does not see an interface as one, hence the widening here, once.
 */
export function successResponse(id: RequestId, result: object): JsonRpcSuccessResponse {
  return { jsonrpc: '2.0', id, result: result as Record<string, unknown> };
}
