import type { Server } from 'node:http';
import { encodeHeaderValue } from '../protocol/header-codec.js';
import { type JsonRpcErrorObject, type JsonRpcNotification } from '../protocol/jsonrpc.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompletionValues,
  GetPromptResult,
  Implementation,
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  PromptDefinition,
  ReadResourceResult,
  ResourceDefinition,
  ToolDefinition,
} from '../protocol/mcp-types.js';
import { extractParamHeaderRules, readPath, type ParamHeaderRule } from '../protocol/param-headers.js';
import { httpPost, type HttpReply } from './http-post.js';
import { closeListener, loopbackOrigin } from './loopback.js';
import { mcpHeaders, mcpMessage } from './mcp-message.js';

/** Something that serves HTTP: a Nest app (`INestApplication`), a Node server, or the base URL of a running one. */
export type McpTestTarget = { getHttpServer(): unknown } | Server | string;

export interface McpTestClientOptions {
  /** The MCP endpoint path. Default `/mcp`. */
  path?: string;
  /** Declared on every request. Default: form elicitation, sampling and roots, so input rounds can be answered. */
  clientCapabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  /** Extra headers on every request, e.g. `authorization`. */
  headers?: Record<string, string>;
}

/** Answers to `input_required` rounds: a map keyed like the server's requests, or a function per request. */
export type InputAnswers =
  InputResponses | ((request: InputRequest, key: string) => InputResponse | Promise<InputResponse>);

export interface McpRequestOptions {
  /** Answers the client gives when the server asks for input; without them an `input_required` result is returned as is. */
  answers?: InputAnswers;
  /** Most rounds before giving up (a server that keeps asking is a bug the test should see). Default 10. */
  maxRounds?: number;
  /** Extra `params._meta` entries (e.g. `traceparent`, a log level). */
  meta?: Record<string, unknown>;
  /** Extra or overriding headers for this request; `undefined` removes one. */
  headers?: Record<string, string | undefined>;
}

/** One request as the test sees it, after any input rounds. */
export interface McpTestExchange<R = Record<string, unknown>> {
  /** HTTP status of the last round. */
  status: number;
  /** HTTP headers of the last round (lower-case names), e.g. a refusal's `retry-after`. */
  headers: Record<string, string>;
  /** The result; undefined when `error` is set. */
  result?: R;
  error?: JsonRpcErrorObject;
  /** Every notification the server streamed (progress, log), over all rounds, in order. */
  notifications: JsonRpcNotification[];
  /** The `params` of the `notifications/progress` among them. */
  progress: Array<{ progress: number; total?: number; message?: string }>;
  /** How many `input_required` rounds were answered. */
  rounds: number;
}

/** The raw reply to `McpTestClient.post`, read to the end. */
export interface McpTestResponse extends HttpReply {
  /**
   * The body parsed, when the response is `application/json`; otherwise undefined (an event stream is in `text`,
   * for `sseMessages`). Untyped on purpose: a test reaches into whatever came back, well-formed or not.
   */
  body: any;
}

/**
 * A client for tests that talks to the real HTTP pipeline of an app (Host/Origin, headers, body layer,
 * guards, interceptors) with everything a 2026-07-28 client sends filled in: the `_meta` envelope,
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the tool's `Mcp-Param-*` headers. It answers
 * `input_required` rounds from given answers until the request completes.
 */
export class McpTestClient {
  private nextId = 1;
  private readonly path: string;
  private readonly capabilities: ClientCapabilities;
  private readonly clientInfo: Implementation;
  private readonly headers: Record<string, string>;
  private paramRules?: Promise<Map<string, ParamHeaderRule[]>>;
  private baseUrl?: Promise<string>;
  private startedServer?: Server;

  constructor(
    private readonly target: McpTestTarget,
    options: McpTestClientOptions = {},
  ) {
    this.path = options.path ?? '/mcp';
    this.capabilities = options.clientCapabilities ?? { elicitation: { form: {} }, sampling: {}, roots: {} };
    this.clientInfo = options.clientInfo ?? { name: 'nestjs-mcp-testing', version: '1.0.0' };
    this.headers = options.headers ?? {};
  }

  discover(options?: McpRequestOptions): Promise<McpTestExchange> {
    return this.request('server/discover', {}, options);
  }

  listTools(
    cursor?: string,
    options?: McpRequestOptions,
  ): Promise<McpTestExchange<{ tools: ToolDefinition[]; nextCursor?: string }>> {
    return this.request('tools/list', cursor === undefined ? {} : { cursor }, options);
  }

  /** Calls a tool with a progress token, so its progress notifications are collected. */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: McpRequestOptions = {},
  ): Promise<McpTestExchange<CallToolResult>> {
    let known = await this.toolHeaderRules();
    if (!known.has(name)) {
      // Registered after the last look: read the list again once.
      this.paramRules = undefined;
      known = await this.toolHeaderRules();
    }
    const headers = { ...paramHeaders(known.get(name) ?? [], args), ...options.headers };
    const meta = { progressToken: `progress-${this.nextId}`, ...options.meta };
    return this.request('tools/call', { name, arguments: args }, { ...options, headers, meta });
  }

  listResources(
    cursor?: string,
    options?: McpRequestOptions,
  ): Promise<McpTestExchange<{ resources: ResourceDefinition[]; nextCursor?: string }>> {
    return this.request('resources/list', cursor === undefined ? {} : { cursor }, options);
  }

  readResource(uri: string, options?: McpRequestOptions): Promise<McpTestExchange<ReadResourceResult>> {
    return this.request('resources/read', { uri }, options);
  }

  listPrompts(
    cursor?: string,
    options?: McpRequestOptions,
  ): Promise<McpTestExchange<{ prompts: PromptDefinition[]; nextCursor?: string }>> {
    return this.request('prompts/list', cursor === undefined ? {} : { cursor }, options);
  }

  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: McpRequestOptions,
  ): Promise<McpTestExchange<GetPromptResult>> {
    return this.request('prompts/get', { name, arguments: args }, options);
  }

  /** `completion/complete` for a prompt argument (`{ type: 'ref/prompt', name }`) or a template variable. */
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
    options?: McpRequestOptions,
  ): Promise<McpTestExchange<{ completion: CompletionValues }>> {
    const params: Record<string, unknown> = { ref, argument };
    if (context) params.context = { arguments: context };
    return this.request('completion/complete', params, options);
  }

  /** Any method, with the envelope and headers filled in and input rounds answered. */
  async request<R = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    options: McpRequestOptions = {},
  ): Promise<McpTestExchange<R>> {
    const maxRounds = options.maxRounds ?? 10;
    const notifications: JsonRpcNotification[] = [];
    let extra: Record<string, unknown> = {};
    for (let rounds = 0; ; rounds++) {
      const reply = await this.exchange(method, { ...params, ...extra }, options);
      notifications.push(...reply.notifications);
      const result = reply.result;
      const exchange: McpTestExchange<R> = {
        status: reply.status,
        headers: reply.headers,
        result: result as R | undefined,
        error: reply.error,
        notifications,
        progress: notifications
          .filter((n) => n.method === 'notifications/progress')
          .map((n) => n.params as McpTestExchange['progress'][number]),
        rounds,
      };
      if (!result || result.resultType !== 'input_required' || options.answers === undefined) return exchange;
      if (rounds >= maxRounds) throw new Error(`${method}: still input_required after ${maxRounds} rounds`);
      extra = {
        inputResponses: await answer(result.inputRequests as InputRequests, options.answers),
        requestState: result.requestState,
      };
    }
  }

  /** Stops the listener this client started, if it started one (a Nest app's `close()` stops it too). */
  async close(): Promise<void> {
    const server = this.startedServer;
    this.startedServer = undefined;
    this.baseUrl = undefined;
    await closeListener(server);
  }

  /**
   * POSTs `body` as given, for requests a conforming client would not send (malformed JSON, a foreign Host, a
   * header missing or at odds with the body): a string goes as is, anything else as JSON. An object body gets
   * the headers `mcpHeaders` derives from it, any other only `content-type: application/json`; the client's
   * `headers` and then these `headers` are laid over them (`undefined` removes one). Nothing else is filled in,
   * no input round is answered, and whatever comes back is returned, JSON-RPC or not.
   */
  async post(body: unknown, headers: Record<string, string | undefined> = {}): Promise<McpTestResponse> {
    const derived =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? mcpHeaders(body)
        : { 'content-type': 'application/json' };
    const reply = await this.send({ ...derived, ...this.headers, ...headers }, body);
    return { ...reply, body: jsonBody(reply.headers['content-type'] ?? '', reply.text) };
  }

  private async send(headers: Record<string, string | undefined>, body: unknown): Promise<HttpReply> {
    const sent = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
    return httpPost(`${await this.url()}${this.path}`, sent, typeof body === 'string' ? body : JSON.stringify(body));
  }

  private async exchange(method: string, params: Record<string, unknown>, options: McpRequestOptions) {
    const body = mcpMessage(method, params, {
      id: this.nextId++,
      clientInfo: this.clientInfo,
      clientCapabilities: this.capabilities,
      meta: options.meta,
    });
    const response = await this.send({ ...mcpHeaders(body), ...this.headers, ...options.headers }, body);
    const { text } = response;
    const messages = jsonRpcMessages(response.headers['content-type'] ?? '', text);
    if (messages === null) {
      // Most often the path: Nest's global prefix is not in it, and Nest's own 404 body comes back.
      throw new Error(
        `MCP test client: POST ${this.path} answered HTTP ${response.status} with no JSON-RPC message ` +
          `(is the MCP endpoint at ${this.path}? With a global prefix pass { path: '/prefix/mcp' }). Body: ${text.slice(0, 200)}`,
      );
    }
    const final = messages.find((m) => 'result' in m || 'error' in m);
    return {
      status: response.status,
      headers: response.headers,
      result: final?.result as Record<string, unknown> | undefined,
      error: final?.error as JsonRpcErrorObject | undefined,
      notifications: messages.filter((m) => !('id' in m)) as unknown as JsonRpcNotification[],
    };
  }

  /** The `x-mcp-header` rules of every tool, read once from `tools/list`. */
  private toolHeaderRules(): Promise<Map<string, ParamHeaderRule[]>> {
    this.paramRules ??= (async () => {
      const rules = new Map<string, ParamHeaderRule[]>();
      let cursor: string | undefined;
      do {
        const page = await this.listTools(cursor);
        for (const tool of page.result?.tools ?? []) rules.set(tool.name, extractParamHeaderRules(tool.inputSchema));
        cursor = page.result?.nextCursor;
      } while (cursor !== undefined);
      return rules;
    })();
    return this.paramRules;
  }

  private url(): Promise<string> {
    this.baseUrl ??= this.resolveUrl();
    return this.baseUrl;
  }

  private async resolveUrl(): Promise<string> {
    if (typeof this.target === 'string') return this.target.replace(/\/+$/, '');
    const { origin, started } = await loopbackOrigin(this.target);
    this.startedServer = started;
    return origin;
  }
}

/** Creates a test client for a Nest app (or Node server, or URL). */
export function createMcpTestClient(target: McpTestTarget, options?: McpTestClientOptions): McpTestClient {
  return new McpTestClient(target, options);
}

async function answer(requests: InputRequests, answers: InputAnswers): Promise<InputResponses> {
  const responses: InputResponses = {};
  for (const [key, request] of Object.entries(requests)) {
    if (typeof answers === 'function') responses[key] = await answers(request, key);
    else if (key in answers) responses[key] = answers[key];
    else throw new Error(`No answer given for input request "${key}" (${request.method})`);
  }
  return responses;
}

function paramHeaders(rules: readonly ParamHeaderRule[], args: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const rule of rules) {
    const value = readPath(args, rule.path);
    if (value !== undefined && value !== null) headers[rule.lowerName] = encodeHeaderValue(String(value));
  }
  return headers;
}

/** The JSON-RPC messages of a response body, or null when it is not an MCP response at all. */
function jsonRpcMessages(contentType: string, text: string): Array<Record<string, unknown>> | null {
  let messages: unknown[];
  try {
    messages = contentType.startsWith('text/event-stream') ? sseMessages(text) : text ? [JSON.parse(text)] : [];
  } catch {
    return null;
  }
  const isMessage = (m: unknown) =>
    typeof m === 'object' && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === '2.0';
  return messages.every(isMessage) ? (messages as Array<Record<string, unknown>>) : null;
}

/** A JSON response body parsed, or undefined when the response is not JSON (or the JSON is broken). */
function jsonBody(contentType: string, text: string): unknown {
  if (!/^application\/(?:[\w.+-]+\+)?json/i.test(contentType) || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Parses a `text/event-stream` body into its JSON messages. */
export function sseMessages(text: string): Array<Record<string, unknown>> {
  return text
    .split(/\r?\n\r?\n/)
    .map((frame) =>
      frame
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}
