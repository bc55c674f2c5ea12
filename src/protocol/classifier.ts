import { ErrorCode } from './error-codes.js';
import { decodeHeaderValue, headerMismatchText, singleHeader, type HeaderBag } from './header-codec.js';
import { routedName, routedParam } from './routed-name.js';
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
  LEGACY_DEFAULT_TRANSPORT_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './versions.js';

/**
 * The request classifier: pure functions that decide, rung by rung, whether a message may reach dispatch.
 * The kernel runs the message rungs; the HTTP and stdio drivers add the envelope rung, HTTP also the header rung. Each rung returns
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
  if (Array.isArray(message))
    return invalid(null, 'Invalid Request: batches are not supported; send one JSON-RPC message at a time');
  if (!isPlainObject(message)) return invalid(null, 'Invalid Request: the message must be a JSON-RPC request object');
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
  return versionError(request, metaOf(request));
}

function versionError(request: JsonRpcRequest, meta: Record<string, unknown> | undefined): JsonRpcErrorResponse | null {
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
  return metaError(request, metaOf(request));
}

function metaError(request: JsonRpcRequest, meta: Record<string, unknown> | undefined): JsonRpcErrorResponse | null {
  if (!meta) {
    return errorResponse(
      request.id,
      ErrorCode.InvalidParams,
      'Invalid params: params._meta is required and must be an object',
    );
  }
  if (typeof meta[META_PROTOCOL_VERSION] !== 'string') {
    return errorResponse(
      request.id,
      ErrorCode.InvalidParams,
      `Invalid params: params._meta["${META_PROTOCOL_VERSION}"] must be a string`,
    );
  }
  if (!isPlainObject(meta[META_CLIENT_CAPABILITIES])) {
    return errorResponse(
      request.id,
      ErrorCode.InvalidParams,
      `Invalid params: params._meta["${META_CLIENT_CAPABILITIES}"] must be an object`,
    );
  }
  return null;
}

const headerMismatch = (request: JsonRpcRequest, text: string): JsonRpcErrorResponse =>
  errorResponse(request.id, ErrorCode.HeaderMismatch, `Header mismatch: ${text}`);

/** Rung: the standard routing headers mirror the body (values are case-sensitive; Node already trims OWS). */
export function checkRoutingHeaders(request: JsonRpcRequest, headers: HeaderBag): JsonRpcErrorResponse | null {
  return routingHeadersError(request, metaOf(request), headers);
}

function routingHeadersError(
  request: JsonRpcRequest,
  meta: Record<string, unknown> | undefined,
  headers: HeaderBag,
): JsonRpcErrorResponse | null {
  const bodyVersion = meta?.[META_PROTOCOL_VERSION] as string;
  const version = singleHeader(headers, 'mcp-protocol-version');
  if (version !== bodyVersion) {
    return headerMismatch(
      request,
      headerMismatchText('MCP-Protocol-Version', bodyVersion, `params._meta["${META_PROTOCOL_VERSION}"]`, version),
    );
  }
  const method = singleHeader(headers, 'mcp-method');
  if (method !== request.method)
    return headerMismatch(request, headerMismatchText('Mcp-Method', request.method, 'method', method));
  const name = routedName(request);
  if (name !== undefined) {
    const raw = singleHeader(headers, 'mcp-name');
    const decoded = raw == null ? undefined : decodeHeaderValue(raw);
    if (decoded?.ok !== true || decoded.value !== name) {
      return headerMismatch(request, headerMismatchText('Mcp-Name', name, routedParam(request.method), raw));
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
  // `_meta` is found once for the three rungs that read it.
  const meta = metaOf(request);
  return metaError(request, meta) ?? routingHeadersError(request, meta, headers) ?? versionError(request, meta);
}

/**
 * The stdio ladder: the HTTP one without the header rung ("there is no header layer" on stdio, so -32020
 * never applies): `initialize` first, then `_meta` presence (-32602), then the version (-32022).
 */
export function classifyStdioRequest(request: JsonRpcRequest): JsonRpcErrorResponse | null {
  if (request.method === 'initialize') return initializeRemovedError(request);
  const meta = metaOf(request);
  return metaError(request, meta) ?? versionError(request, meta);
}

/**
 * Which era a POSTed message belongs to, decided before any other message rung (the dual-era rules of
 * 2026-07-28, versioning): `modern` takes the 2026-07-28 ladder above unchanged; `legacy` is served by the
 * 2025-era leg at `version` (the `MCP-Protocol-Version` header, or 2025-03-26 without one); `reply` is a client's
 * JSON-RPC response to a server→client request of that leg; `refused` is answered as it is, with `status`.
 */
export type EraVerdict =
  | { era: 'modern' }
  | { era: 'legacy'; version: string }
  | { era: 'reply'; version: string }
  | { era: 'refused'; status: number; response: JsonRpcErrorResponse };

const MODERN: EraVerdict = { era: 'modern' };

/**
 * Rung 0 of a POST: only the `_meta` key `io.modelcontextprotocol/protocolVersion` claims 2026-07-28 (other
 * 2026 keys, such as a log level, ride 2025-era requests too), and the header is a cross-check, never the
 * claim: clients that predate 2025-06-18 send none. In order:
 * - anything that is not one object (a batch, a scalar), or whose params are not one → modern, whose shape
 *   rung refuses it as either era would;
 * - a response → reply (its id names a request of the server's, so an error never echoes it);
 * - `initialize` → legacy, unless its claim names a revision the envelope serves (then modern: 404), or the
 *   header names one without that claim (400 -32020: header and body disagree);
 * - a claim → modern;
 * - a request whose header names a modern revision without the claim → 400 -32602, the envelope is missing;
 *   such a notification → modern;
 * - a header naming no revision this server speaks → 400 -32022;
 * - otherwise → legacy.
 */
export function classifyEra(message: unknown, headers: HeaderBag): EraVerdict {
  // A message of the wrong shape gets the same -32600 from either era: the modern shape rung gives it.
  if (!isPlainObject(message)) return MODERN;
  const params = message.params;
  if (params !== undefined && !isPlainObject(params)) return MODERN;
  // The id is read only where a refusal echoes it: a modern request is placed without it.
  const meta = params !== undefined && isPlainObject(params._meta) ? params._meta : undefined;
  const claimed = meta !== undefined && META_PROTOCOL_VERSION in meta;
  const method = 'method' in message;
  // The common case, placed before the header is read: a claim on anything but `initialize` (see below).
  if (claimed && method && message.method !== 'initialize') return MODERN;
  const header = singleHeader(headers, 'mcp-protocol-version') ?? undefined;
  const modernHeader = header !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(header);
  if (!method) {
    // 2026-07-28 clients are never asked anything, so a response from one is refused by the modern shape rung.
    if (modernHeader || !('result' in message || 'error' in message)) return MODERN;
    return headerRefusal(null, header) ?? { era: 'reply', version: header ?? LEGACY_DEFAULT_TRANSPORT_VERSION };
  }
  if (message.method === 'initialize') {
    const claim = meta?.[META_PROTOCOL_VERSION];
    if (typeof claim === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(claim)) return MODERN;
    if (modernHeader) {
      const response = errorResponse(
        echoableId(message),
        ErrorCode.HeaderMismatch,
        `Header mismatch: MCP-Protocol-Version header value '${header}' names a revision without initialize, but the body is an initialize without params._meta["${META_PROTOCOL_VERSION}"]`,
      );
      return { era: 'refused', status: 400, response };
    }
  } else if (modernHeader) {
    if (!('id' in message)) return MODERN;
    const response = errorResponse(
      echoableId(message),
      ErrorCode.InvalidParams,
      `Invalid params: MCP-Protocol-Version ${header} requires the per-request envelope: params._meta["${META_PROTOCOL_VERSION}"] is missing`,
    );
    return { era: 'refused', status: 400, response };
  }
  return (
    headerRefusal(echoableId(message), header) ?? { era: 'legacy', version: header ?? LEGACY_DEFAULT_TRANSPORT_VERSION }
  );
}

/** A 2025-era message whose header names a revision this server does not speak: 400 (2025-11-25 transports, MUST). */
function headerRefusal(id: RequestId | null, header: string | undefined): EraVerdict | null {
  if (header === undefined || LEGACY_PROTOCOL_VERSIONS.includes(header)) return null;
  const response = unsupportedVersionError(id, header);
  response.error.message = `Unsupported protocol version: ${header} (this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} per request, and ${LEGACY_PROTOCOL_VERSIONS.join(', ')} after initialize)`;
  return { era: 'refused', status: 400, response };
}

/**
 * The answer to a 2025-era message when the legacy leg is off: 400 -32022 naming the revisions the envelope
 * serves (versioning: a modern-only server SHOULD say what it supports), with the version the client asked for.
 */
export function legacyOffError(message: unknown, version: string): JsonRpcErrorResponse {
  const params = isPlainObject(message) && isPlainObject(message.params) ? message.params : undefined;
  const requested =
    isPlainObject(message) && message.method === 'initialize' && typeof params?.protocolVersion === 'string'
      ? params.protocolVersion
      : version;
  const response = unsupportedVersionError(echoableId(message), requested);
  response.error.message =
    `Unsupported protocol version: ${requested}. This server serves only ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}, with no initialize handshake: ` +
    `send each request with its protocol version and client capabilities in params._meta, or call server/discover`;
  return response;
}
