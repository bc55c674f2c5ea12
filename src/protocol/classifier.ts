import { ErrorCode } from './error-codes.js';
import { decodeHeaderValue, singleHeader, type HeaderBag } from './header-codec.js';
import {
  echoableId,
  errorResponse,
  isPlainObject,
  isValidRequestId,
  type JsonRpcErrorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type RequestId,
} from './jsonrpc.js';
import {
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './versions.js';

/**
 * The request classifier: pure functions that decide, rung by rung, whether a message may reach dispatch.
 * The kernel runs the message rungs; the HTTP driver adds the envelope and header rungs. Each rung returns
 * the exact error to send, so the order of the ladder lives here and nowhere else.
 */
export type MessageVerdict =
  | { kind: 'request'; request: JsonRpcRequest }
  | { kind: 'notification'; notification: JsonRpcNotification }
  | { kind: 'invalid'; response: JsonRpcErrorResponse };

const invalid = (message: unknown, text: string): MessageVerdict => ({
  kind: 'invalid',
  response: errorResponse(echoableId(message), ErrorCode.InvalidRequest, text),
});

/** Rung: one JSON-RPC 2.0 request or notification object, as MCP narrows it. */
export function classifyMessage(message: unknown): MessageVerdict {
  if (Array.isArray(message)) return invalid(null, 'Invalid Request: batches are not supported; send one JSON-RPC message per POST');
  if (!isPlainObject(message)) return invalid(null, 'Invalid Request: the body must be a JSON-RPC request object');
  if (message.jsonrpc !== '2.0') return invalid(message, 'Invalid Request: "jsonrpc" must be "2.0"');
  if (!('method' in message) && ('result' in message || 'error' in message)) {
    // A response's id names one of the *server's* requests: echoing it would answer a request nobody sent.
    return invalid(null, 'Invalid Request: the server does not accept JSON-RPC responses');
  }
  if (typeof message.method !== 'string') return invalid(message, 'Invalid Request: "method" must be a string');
  if ('params' in message && message.params !== undefined && !isPlainObject(message.params)) {
    return invalid(message, 'Invalid Request: "params" must be an object');
  }
  if (!('id' in message)) return { kind: 'notification', notification: message as unknown as JsonRpcNotification };
  if (!isValidRequestId(message.id)) {
    return invalid(message, 'Invalid Request: "id" must be a string or an integer (MCP forbids null ids)');
  }
  return { kind: 'request', request: message as unknown as JsonRpcRequest };
}

/** The error for `initialize`: legacy clients get told what changed instead of a bare "method not found". */
export function initializeRemovedError(request: JsonRpcRequest): JsonRpcErrorResponse {
  return errorResponse(
    request.id,
    ErrorCode.MethodNotFound,
    'Method not found: initialize was removed by the stateless 2026-07-28 specification; there is no handshake ' +
      'before tool calls. Send each request with its protocol version and client capabilities in params._meta, ' +
      `or call server/discover. Supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    { supported: [...SUPPORTED_PROTOCOL_VERSIONS] },
  );
}

function metaOf(request: JsonRpcRequest): Record<string, unknown> | undefined {
  const meta = request.params?._meta;
  return isPlainObject(meta) ? meta : undefined;
}

/**
 * Rung: the version the request claims. Runs in the kernel for every request, with or without HTTP.
 * A bare `_meta.protocolVersion` is a malformed self-description; the spec's key names a version we may not serve.
 */
export function checkProtocolVersion(request: JsonRpcRequest): JsonRpcErrorResponse | null {
  const meta = metaOf(request);
  if (!meta) return null;
  if ('protocolVersion' in meta && meta.protocolVersion !== SUPPORTED_PROTOCOL_VERSIONS[0]) {
    return errorResponse(
      request.id,
      ErrorCode.InvalidRequest,
      `Invalid Request: _meta.protocolVersion must be "${SUPPORTED_PROTOCOL_VERSIONS[0]}"; requests self-describe their version in _meta["${META_PROTOCOL_VERSION}"]`,
    );
  }
  if (META_PROTOCOL_VERSION in meta) {
    const requested = meta[META_PROTOCOL_VERSION];
    if (typeof requested !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(requested)) {
      return unsupportedVersionError(request.id, typeof requested === 'string' ? requested : JSON.stringify(requested));
    }
  }
  return null;
}

/** The -32022 answer, with the `data: {supported, requested}` the spec requires. */
export function unsupportedVersionError(id: RequestId | null, requested: string): JsonRpcErrorResponse {
  return errorResponse(id, ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
    supported: [...SUPPORTED_PROTOCOL_VERSIONS],
    requested,
  });
}

/** Rung: the per-request envelope the 2026-07-28 transport requires in `params._meta`. */
export function checkRequestMeta(request: JsonRpcRequest): JsonRpcErrorResponse | null {
  const meta = metaOf(request);
  if (!meta) {
    return errorResponse(request.id, ErrorCode.InvalidParams, 'Invalid params: params._meta is required and must be an object');
  }
  if (typeof meta[META_PROTOCOL_VERSION] !== 'string') {
    return errorResponse(request.id, ErrorCode.InvalidParams, `Invalid params: params._meta["${META_PROTOCOL_VERSION}"] must be a string`);
  }
  if (!isPlainObject(meta[META_CLIENT_CAPABILITIES])) {
    return errorResponse(request.id, ErrorCode.InvalidParams, `Invalid params: params._meta["${META_CLIENT_CAPABILITIES}"] must be an object`);
  }
  return null;
}

/** The body value that `Mcp-Name` mirrors, for the methods that have one. */
export function routedName(request: JsonRpcRequest): string | undefined {
  switch (request.method) {
    case 'tools/call':
    case 'prompts/get':
      return typeof request.params?.name === 'string' ? request.params.name : undefined;
    case 'resources/read':
      return typeof request.params?.uri === 'string' ? request.params.uri : undefined;
    // The tasks extension routes by task, so a load balancer can send a task's traffic where its state is.
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel':
      return typeof request.params?.taskId === 'string' ? request.params.taskId : undefined;
    default:
      return undefined;
  }
}

const headerMismatch = (request: JsonRpcRequest, text: string): JsonRpcErrorResponse =>
  errorResponse(request.id, ErrorCode.HeaderMismatch, `Header mismatch: ${text}`);

/** Rung: the standard routing headers mirror the body (values are case-sensitive; Node already trims OWS). */
export function checkRoutingHeaders(request: JsonRpcRequest, headers: HeaderBag): JsonRpcErrorResponse | null {
  const bodyVersion = metaOf(request)?.[META_PROTOCOL_VERSION] as string;
  const version = singleHeader(headers, 'mcp-protocol-version');
  if (version == null) return headerMismatch(request, 'MCP-Protocol-Version header is missing or repeated');
  if (version !== bodyVersion) {
    return headerMismatch(request, `MCP-Protocol-Version header value '${version}' does not match body value '${bodyVersion}'`);
  }
  const method = singleHeader(headers, 'mcp-method');
  if (method == null) return headerMismatch(request, 'Mcp-Method header is missing or repeated');
  if (method !== request.method) {
    return headerMismatch(request, `Mcp-Method header value '${method}' does not match body value '${request.method}'`);
  }
  const name = routedName(request);
  if (name !== undefined) {
    const raw = singleHeader(headers, 'mcp-name');
    if (raw == null) return headerMismatch(request, 'Mcp-Name header is missing or repeated');
    const decoded = decodeHeaderValue(raw);
    if (!decoded.ok) return headerMismatch(request, 'Mcp-Name header value is malformed');
    if (decoded.value !== name) {
      return headerMismatch(request, `Mcp-Name header value '${decoded.value}' does not match body value '${name}'`);
    }
  }
  return null;
}

/**
 * The transport ladder for a request that passed `classifyMessage`, in the order the conformance probes pin:
 * `initialize` first (so legacy clients learn why), then `_meta` presence (-32602), then header/body agreement
 * (-32020), then the version (-32022). Tool-specific `Mcp-Param-*` headers are checked by the kernel, which
 * knows the tool.
 */
export function classifyHttpRequest(request: JsonRpcRequest, headers: HeaderBag): JsonRpcErrorResponse | null {
  if (request.method === 'initialize') return initializeRemovedError(request);
  return checkRequestMeta(request) ?? checkRoutingHeaders(request, headers) ?? checkProtocolVersion(request);
}
