import { isPlainObject, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import { singleHeader, type HeaderBag } from '../protocol/header-codec.js';
import type { MetaObject } from '../protocol/mcp-types.js';
import { primitiveName, primitiveParam } from '../protocol/routed-name.js';
import { META_PROTOCOL_VERSION } from '../protocol/versions.js';

/** One dispatched request as interceptors see it: what was asked, of which primitive, by which transport. */
export interface McpCall {
  readonly method: string;
  /** Null for a request refused before its body was read (a bearer token's 401): described by its headers. */
  readonly requestId: RequestId | null;
  /** The tool or prompt name (`tools/call`, `prompts/get`). */
  readonly name?: string;
  /** The resource URI (`resources/read`). */
  readonly uri?: string;
  readonly protocolVersion?: string;
  /** The request's `params._meta` (trace context travels here). */
  readonly meta: MetaObject;
  /** The transport's request object, if any. */
  readonly httpRequest?: unknown;
  /** The exception behind an internal error or a tool error, when a handler threw something unexpected. */
  error?: unknown;
  /** The id the client was given for that exception (in a redacted message), to find it in the log. */
  correlationId?: string;
}

/**
 * Wraps the processing of one request: call `next()` exactly once and return (or replace) its response. The
 * kernel's single extension point for logging, tracing and metrics; it never throws through the kernel.
 */
export type McpCallInterceptor = (call: McpCall, next: () => Promise<JsonRpcResponse>) => Promise<JsonRpcResponse>;

/**
 * What one of the library's own interceptors carries to say it would only call `next()` now (the tracing layer
 * until an SDK registers a tracer provider): while every interceptor says so, the kernel runs none, and a call
 * answered synchronously is answered without a promise.
 */
export const PASSES_THROUGH = Symbol('nestjs-mcp.passesThrough');

/** An interceptor that may say it would pass the call straight through (`PASSES_THROUGH`). */
export type PassingInterceptor = McpCallInterceptor & { [PASSES_THROUGH]?: () => boolean };

/**
 * Sees each call's response as soon as it is made, inside every interceptor, and returns it (or a replacement).
 * For what only reads the answer (the failed-call log): synchronous, so it costs a call no promise or microtask
 * of its own, where an interceptor's `next().then(...)` costs both on every call.
 */
export type McpCallObserver = (call: McpCall, response: JsonRpcResponse) => JsonRpcResponse;

/**
 * What one of the library's own observers carries to say it returns a successful response untouched without
 * reading the call (the failed-call log): while every observer says so, a call that succeeds is never described.
 */
export const SEES_FAILURES_ONLY = Symbol('nestjs-mcp.seesFailuresOnly');

/** An observer that may say it sees failed calls only (`SEES_FAILURES_ONLY`). */
export type FailureObserver = McpCallObserver & { [SEES_FAILURES_ONLY]?: true };

/** Whether a response is a failed call: a JSON-RPC error or a tool's `isError` result. */
export function isFailedResponse(response: JsonRpcResponse): boolean {
  return 'error' in response || response.result.isError === true;
}

/** How a call ended, in the vocabulary of the OpenTelemetry MCP conventions (`error.type`). */
export interface McpCallOutcome {
  status: 'ok' | 'error' | 'tool_error' | 'input_required';
  /** The JSON-RPC error code as a string, or `tool_error` for an `isError` tool result. */
  errorType?: string;
  errorCode?: number;
  message?: string;
}

export function describeCall(request: JsonRpcRequest, httpRequest: unknown): McpCall {
  const params = request.params ?? {};
  const meta = (isPlainObject(params._meta) ? params._meta : {}) as MetaObject;
  const version = meta[META_PROTOCOL_VERSION];
  const param = primitiveParam(request.method);
  const named = param && primitiveName(request);
  return {
    method: request.method,
    requestId: request.id,
    name: param === 'name' ? named : undefined,
    uri: param === 'uri' ? named : undefined,
    protocolVersion: typeof version === 'string' ? version : undefined,
    meta,
    httpRequest,
  };
}

/**
 * A request refused before its body was read, as its envelope headers (`Mcp-Method`, `Mcp-Name`) describe it;
 * undefined without `Mcp-Method` (a 2025-era client sends none).
 */
export function describeByHeaders(headers: HeaderBag, httpRequest: unknown): McpCall | undefined {
  const method = singleHeader(headers, 'mcp-method');
  if (method === undefined || method === null) return undefined;
  const param = primitiveParam(method);
  const named = singleHeader(headers, 'mcp-name') ?? undefined;
  return {
    method,
    requestId: null,
    name: param === 'name' ? named : undefined,
    uri: param === 'uri' ? named : undefined,
    meta: {},
    httpRequest,
  };
}

export function outcomeOf(response: JsonRpcResponse): McpCallOutcome {
  if ('error' in response) {
    return {
      status: 'error',
      errorType: String(response.error.code),
      errorCode: response.error.code,
      message: response.error.message,
    };
  }
  const result = response.result;
  if (result.resultType === 'input_required') return { status: 'input_required' };
  if (result.isError === true) {
    const first = Array.isArray(result.content) ? result.content[0] : undefined;
    const message = isPlainObject(first) && typeof first.text === 'string' ? first.text : undefined;
    return { status: 'tool_error', errorType: 'tool_error', message };
  }
  return { status: 'ok' };
}

/** Nests interceptors so that each one added wraps those added before it. */
export function chainInterceptors(
  inner: McpCallInterceptor | undefined,
  outer: McpCallInterceptor,
): McpCallInterceptor {
  if (!inner) return outer;
  return (call, next) => outer(call, () => inner(call, next));
}
