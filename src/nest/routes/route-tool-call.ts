import type { IncomingHttpHeaders } from 'node:http';
import type { InProcessRequest, InProcessResponse } from '../../http/in-process-request.js';
import type { CallToolResult } from '../../protocol/mcp-types.js';
import { McpError } from '../../protocol/mcp-error.js';
import { httpErrorText } from '../http-error-text.js';
import type { RouteArguments } from './route-arguments.js';

/** What a route tool sends, worked out at start-up: the route's method and path, its arguments, what to forward. */
export interface RouteRequestPlan {
  method: string;
  /** The route's full path, `:tokens` included (global prefix, module path and URI version applied). */
  path: string;
  arguments: RouteArguments;
  /** Lower-case names of the MCP request's headers that reach the route. */
  forwardHeaders: readonly string[];
  /** Headers every call sends (a version header under header versioning). */
  fixedHeaders: Readonly<Record<string, string>>;
  maxResponseBytes: number;
}

/**
 * The handler one call is meant for, and what the app-side guard (`RouteTargetGuard`) saw: the handler Nest's
 * router dispatched the request to is checked against it before that handler's own guards run.
 */
export interface RouteTarget {
  readonly controller: Function;
  readonly handler: Function;
  /** The request reached this handler. */
  reached: boolean;
  /** The router dispatched it to another handler, which was refused before it ran. */
  strayed: boolean;
}

const PATH_TOKEN = /:([A-Za-z0-9_]+)/g;

/**
 * The in-process request for one call: arguments placed where the route reads them (path segments encoded,
 * query keys repeated for arrays, the body as JSON), the MCP caller's identity headers and nothing else of
 * its request. Arguments the route does not declare are dropped, unless it takes an untyped body or query.
 */
export function routeRequest(
  plan: RouteRequestPlan,
  args: Record<string, unknown>,
  httpRequest: unknown,
  signal: AbortSignal,
  target?: RouteTarget,
): InProcessRequest {
  const pathValues: Record<string, unknown> = {};
  const query = new URLSearchParams();
  let body: unknown = plan.arguments.hasBody ? {} : undefined;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const argument = plan.arguments.byName.get(name);
    const source = argument?.source ?? plan.arguments.rest;
    const key = argument ? argument.key : name;
    if (source === 'path') pathValues[key!] = value;
    else if (source === 'query') appendQuery(query, key!, value);
    else if (source === 'body') {
      if (key === undefined) body = value;
      else (body as Record<string, unknown>)[key] = value;
    }
  }
  const path = plan.path.replace(PATH_TOKEN, (_, token: string) =>
    encodeURIComponent(pathSegment(plan, pathValues, token)),
  );
  const search = query.toString();

  const outer = headersOf(httpRequest);
  const headers: Record<string, string> = { host: single(outer?.host) ?? 'localhost', accept: 'application/json' };
  for (const name of plan.forwardHeaders) {
    const value = outer?.[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
  }
  Object.assign(headers, plan.fixedHeaders);
  let payload: Buffer | undefined;
  if (body !== undefined) {
    payload = Buffer.from(JSON.stringify(body), 'utf8');
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return {
    method: plan.method,
    path: search ? `${path}?${search}` : path,
    headers,
    body: payload,
    ...peerOf(httpRequest),
    target,
    maxResponseBytes: plan.maxResponseBytes,
    signal,
  };
}

/**
 * The tool result of a route's answer: 2xx JSON is structured content (an object) plus its JSON text, 2xx
 * text is text; a 4xx/5xx is an error result with the route's message; a redirect, an event stream, a binary
 * or an oversized answer is an error result saying so. No header of the answer reaches the MCP client, but a 429
 * (the app's throttler refused the caller) is the protocol's come-back-later, -32023 with the route's
 * `Retry-After` as `retryAfterMs`, so the client waits as for any rate limit.
 */
export function routeResult(
  response: InProcessResponse,
  maxResponseBytes: number,
  plan: RouteRequestPlan,
  target: RouteTarget,
): CallToolResult {
  if (target.strayed)
    return failure(`these arguments lead to a route other than ${plan.method} ${plan.path}; its handler was not run`);
  // Answered before any handler (a middleware): an error keeps its message, a success is not the route's own.
  if (!target.reached && response.status < 400)
    return failure(`the request was answered by something other than the route ${plan.method} ${plan.path}`);
  if (response.kind === 'stream')
    return failure('the route answered with an event stream (text/event-stream), which a tool call cannot carry');
  if (response.kind === 'too-large') return failure(`the route's answer exceeds ${maxResponseBytes} bytes`);
  const { status, headers, body } = response;
  const type = headers['content-type'] ?? '';
  const json = /^application\/([\w.-]+\+)?json\b/i.test(type);
  if (status >= 300 && status < 400)
    return failure(`the route redirected (HTTP ${status}) to ${headers.location ?? '?'}`);
  if (status >= 400) {
    const text = body.toString('utf8');
    if (status === TOO_MANY_REQUESTS)
      throw McpError.rateLimited(
        json ? httpErrorText(parseJson(text), 'Too Many Requests') : text || 'Too Many Requests',
        {
          retryAfterMs: retryAfterMs(headers),
        },
      );
    return failure(json ? httpErrorText(parseJson(text), `HTTP ${status}`) : text || `HTTP ${status}`);
  }
  if (body.length === 0) return { content: [] };
  const text = body.toString('utf8');
  if (json) {
    const value = parseJson(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return { content: [{ type: 'text', text }], structuredContent: value as Record<string, unknown> };
    return { content: [{ type: 'text', text }] };
  }
  if (/^text\//i.test(type) || type === '') return { content: [{ type: 'text', text }] };
  return failure(`the route answered ${type}, which a route tool does not carry (it carries JSON and text)`);
}

const TOO_MANY_REQUESTS = 429;

/**
 * The wait a 429 asks for: its `Retry-After` in seconds, or the longest of `@nestjs/throttler`'s per-throttler
 * `Retry-After-<name>`; a second when it names none (or names a date).
 */
function retryAfterMs(headers: IncomingHttpHeaders): number {
  let seconds = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'retry-after' && !name.startsWith('retry-after-')) continue;
    const given = Number(Array.isArray(value) ? value[0] : value);
    if (Number.isFinite(given) && given > seconds) seconds = given;
  }
  return (seconds > 0 ? seconds : 1) * 1000;
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `Error: ${text}` }] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function appendQuery(query: URLSearchParams, key: string, value: unknown): void {
  if (Array.isArray(value)) for (const item of value) query.append(key, textOf(item));
  else query.append(key, textOf(value));
}

/**
 * The text of one path parameter, refused (-32602 naming the argument) when it is missing or would not stay
 * one segment of this route: empty (the route's parent, a trailing-slash twin), `.` or `..`.
 */
function pathSegment(plan: RouteRequestPlan, values: Record<string, unknown>, token: string): string {
  const value = values[token];
  const name = plan.arguments.pathNames.get(token) ?? token;
  if (value === undefined || value === null)
    throw McpError.invalidParams(
      `Invalid params: "${name}" is required (a path parameter of ${plan.method} ${plan.path})`,
    );
  const text = textOf(value);
  if (text === '' || text === '.' || text === '..')
    throw McpError.invalidParams(`Invalid params: "${name}" must not be empty, "." or ".." (a path segment)`);
  return text;
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The MCP request's headers: Express's and Fastify's requests both carry Node's header object. */
function headersOf(httpRequest: unknown): IncomingHttpHeaders | undefined {
  return (httpRequest as { headers?: IncomingHttpHeaders } | undefined)?.headers;
}

/**
 * The MCP caller's address and protocol as the app resolved them: Express's `req.ip` / `req.protocol` (under its
 * `trust proxy` setting) and Fastify's `request.ip` / `request.protocol` (under `trustProxy`); the socket's
 * peer for any other request object. The route's framework then resolves the same from the inner connection.
 */
function peerOf(httpRequest: unknown): { remoteAddress?: string; encrypted: boolean } {
  const request = httpRequest as
    { ip?: unknown; protocol?: unknown; socket?: { remoteAddress?: string; encrypted?: boolean } } | undefined;
  const ip = typeof request?.ip === 'string' && request.ip !== '' ? request.ip : request?.socket?.remoteAddress;
  const encrypted = typeof request?.protocol === 'string' ? request.protocol === 'https' : !!request?.socket?.encrypted;
  return { remoteAddress: ip, encrypted };
}
