import type { IncomingHttpHeaders } from 'node:http';
import type { InProcessRequest, InProcessResponse } from '../../http/in-process-request.js';
import type { CallToolResult } from '../../protocol/mcp-types.js';
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
  const path = plan.path.replace(PATH_TOKEN, (_, token: string) => encodeURIComponent(textOf(pathValues[token])));
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
    remoteAddress: remoteAddressOf(httpRequest),
    maxResponseBytes: plan.maxResponseBytes,
    signal,
  };
}

/**
 * The tool result of a route's answer: 2xx JSON is structured content (an object) plus its JSON text, 2xx
 * text is text; a 4xx/5xx is an error result with the route's message; a redirect, an event stream, a binary
 * or an oversized answer is an error result saying so. No header of the answer reaches the MCP client.
 */
export function routeResult(response: InProcessResponse, maxResponseBytes: number): CallToolResult {
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

function remoteAddressOf(httpRequest: unknown): string | undefined {
  return (httpRequest as { socket?: { remoteAddress?: string } } | undefined)?.socket?.remoteAddress;
}
