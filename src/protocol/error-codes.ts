/** JSON-RPC 2.0 and MCP 2026-07-28 error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  // JSON-RPC's implementation-defined server error: the SDKs' body for transport refusals such as a 405.
  ServerError: -32000,
  // What the SDKs answer (with 404) for a 2025-era session that ended or never existed.
  SessionNotFound: -32001,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  // Two drafts each take -32023, the next free code in MCP's range: "Standardize Rate-Limiting Errors" (come back
  // later, `data.retryAfterMs` says when) and SEP-3415 (Events), whose general-purpose not-found it is, beside its
  // -32026. Both are provisional until accepted; until one moves, a -32023 whose data says when to come back is a
  // rate limit (HTTP 429), and any other a not-found (HTTP 400).
  RateLimited: -32023,
  NotFound: -32023,
  // SEP-3415's other general-purpose codes: the principal may not (webhooks need one), a per-caller bound was
  // reached (`data.limit` names it), a client's webhook callback failed verification (`data.reason`, a category).
  Forbidden: -32024,
  ResourceExhausted: -32025,
  Unsupported: -32026,
  CallbackEndpointError: -32027,
  // The spec defines no JSON-RPC code for authorization failures (clients act on the HTTP status and the
  // WWW-Authenticate challenge), so these are application codes outside the ranges JSON-RPC and MCP reserve.
  Unauthorized: -31401,
  InsufficientScope: -31403,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

// The one table that turns a JSON-RPC error into an HTTP status. The spec fixes 404 for -32601 and 400 for
// the MCP codes; the rest follow the SDKs' ladder table so a client can tell a bad request from a result.
const HTTP_STATUS_BY_CODE: ReadonlyMap<number, number> = new Map([
  [ErrorCode.ParseError, 400],
  [ErrorCode.InvalidRequest, 400],
  [ErrorCode.InvalidParams, 400],
  [ErrorCode.HeaderMismatch, 400],
  [ErrorCode.MissingRequiredClientCapability, 400],
  [ErrorCode.UnsupportedProtocolVersion, 400],
  [ErrorCode.NotFound, 400],
  [ErrorCode.Unsupported, 400],
  [ErrorCode.Forbidden, 400],
  [ErrorCode.ResourceExhausted, 400],
  [ErrorCode.CallbackEndpointError, 400],
  [ErrorCode.MethodNotFound, 404],
  [ErrorCode.Unauthorized, 401],
  [ErrorCode.InsufficientScope, 403],
]);

export function httpStatusForError(error: { code: number; data?: unknown }): number {
  if (isRateLimited(error)) return 429;
  return HTTP_STATUS_BY_CODE.get(error.code) ?? 200;
}

/** A -32023 that says when to come back: a rate limit, not SEP-3415's not-found (see `ErrorCode`). */
function isRateLimited(error: { code: number; data?: unknown }): boolean {
  if (error.code !== ErrorCode.RateLimited) return false;
  const data = error.data as Partial<RateLimitedData> | null | undefined;
  return typeof data === 'object' && data !== null && typeof data.retryAfterMs === 'number';
}

/** What a `RateLimited` error carries: when to come back, and the budget that was spent when the limit says so. */
export interface RateLimitedData {
  /** Milliseconds until the caller may try again: a positive integer. */
  retryAfterMs: number;
  limit?: number;
  remaining?: number;
}

/**
 * The HTTP headers that go with an error, from its data: a `RateLimited` error's `Retry-After` (whole seconds,
 * at least 1, so a client never retries at once) and `RateLimit-Limit` / `RateLimit-Remaining` when it names them.
 */
export function httpHeadersForError(error: { code: number; data?: unknown }): Record<string, string> | undefined {
  if (!isRateLimited(error)) return undefined;
  const data = error.data as RateLimitedData;
  const wait = data.retryAfterMs > 0 ? data.retryAfterMs : 1000;
  const headers: Record<string, string> = { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) };
  if (isCount(data.limit)) headers['ratelimit-limit'] = String(data.limit);
  if (isCount(data.remaining)) headers['ratelimit-remaining'] = String(data.remaining);
  return headers;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
