/**
 * The page's MCP client: 2026-07-28 over the same origin's endpoint, one POST per request, as any client speaks
 * it. Every request carries the protocol version and the client's capabilities in `_meta`, and the routing
 * headers mirror the body. The bearer token lives in this object only (never in storage).
 */
export const PROTOCOL_VERSION = '2026-07-28';
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What the page can answer: forms (elicitation), sampling and roots typed in by hand, UIs and tasks. */
export const CLIENT_CAPABILITIES = {
  elicitation: { form: {} },
  sampling: {},
  roots: {},
  extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] }, [TASKS_EXTENSION]: {} },
};

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One exchange: the HTTP status, the JSON-RPC result or error, and the `WWW-Authenticate` challenge if any. */
export interface RpcOutcome {
  status: number;
  result?: any;
  error?: RpcError;
  challenge?: string;
}

export type Notification = { method: string; params?: any };

// Header values are visible ASCII; anything else travels base64-wrapped (SEP-2243), as the server decodes it.
const PLAIN_HEADER = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export function headerValue(value: string): string {
  if (PLAIN_HEADER.test(value) && !value.startsWith('=?base64?')) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** The body value `Mcp-Name` mirrors for a method, if it has one. */
function routedName(method: string, params: Record<string, unknown>): unknown {
  if (method === 'tools/call' || method === 'prompts/get') return params.name;
  if (method === 'resources/read') return params.uri;
  if (method.startsWith('tasks/')) return params.taskId;
  return undefined;
}

/** `x-mcp-header` annotations of an input schema, mirrored as `Mcp-Param-*` headers from the arguments. */
export function paramHeaders(schema: any, args: any, path: string[] = []): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!schema || typeof schema !== 'object' || !schema.properties) return headers;
  for (const [key, child] of Object.entries<any>(schema.properties)) {
    const value = args?.[key];
    if (child && typeof child['x-mcp-header'] === 'string' && value !== undefined && value !== null)
      headers[`mcp-param-${child['x-mcp-header']}`] = headerValue(String(value));
    Object.assign(headers, paramHeaders(child, value, [...path, key]));
  }
  return headers;
}

export class McpClient {
  token = '';
  private nextId = 1;

  constructor(readonly endpoint: string) {}

  async request(
    method: string,
    params: Record<string, unknown> = {},
    options: {
      headers?: Record<string, string>;
      onNotification?: (n: Notification) => void;
      signal?: AbortSignal;
    } = {},
  ): Promise<RpcOutcome> {
    const id = this.nextId++;
    const meta = {
      ...((params._meta as object) ?? {}),
      'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientCapabilities': CLIENT_CAPABILITIES,
      'io.modelcontextprotocol/clientInfo': { name: 'nestjs-mcp-playground', version: '1.0.0' },
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': method,
      ...options.headers,
    };
    const name = routedName(method, params);
    if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
      signal: options.signal,
    });
    const outcome: RpcOutcome = { status: response.status };
    const challenge = response.headers.get('www-authenticate');
    if (challenge) outcome.challenge = challenge;
    const type = response.headers.get('content-type') ?? '';
    const message = type.startsWith('text/event-stream')
      ? await readStream(response, id, options.onNotification)
      : await response.json().catch(() => undefined);
    if (message?.error) outcome.error = message.error;
    else if (message && 'result' in message) outcome.result = message.result;
    else outcome.error = { code: 0, message: `HTTP ${response.status} ${response.statusText}`.trim() };
    return outcome;
  }

  /** Every page of a list method. */
  async list(method: string, key: string): Promise<{ items: any[]; outcome: RpcOutcome }> {
    const items: any[] = [];
    let cursor: string | undefined;
    for (;;) {
      const outcome = await this.request(method, cursor === undefined ? {} : { cursor });
      if (!outcome.result) return { items, outcome };
      items.push(...(outcome.result[key] ?? []));
      cursor = outcome.result.nextCursor;
      if (cursor === undefined) return { items, outcome };
    }
  }
}

/** Reads an SSE answer as it arrives: notifications go to the callback, the response to `id` is returned. */
async function readStream(response: Response, id: number, onNotification?: (n: Notification) => void) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let answer: any;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return answer;
    buffer += value.replaceAll('\r\n', '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (!data) continue;
      const message = JSON.parse(data);
      if (message.id === id && ('result' in message || 'error' in message)) answer = message;
      else if (message.method) onNotification?.(message);
    }
  }
}
