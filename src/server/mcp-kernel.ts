import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { checkProtocolVersion, classifyMessage, initializeRemovedError } from '../protocol/classifier.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { HeaderBag } from '../protocol/header-codec.js';
import {
  errorResponse,
  isPlainObject,
  successResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import {
  LOG_LEVELS,
  type CacheHints,
  type ClientCapabilities,
  type Implementation,
  type InputRequest,
  type InputRequests,
  type InputResponses,
  type MetaObject,
  type PromptMessage,
  type ResourceContents,
  type ServerCapabilities,
  type ToolDefinition,
} from '../protocol/mcp-types.js';
import { checkParamHeaders } from '../protocol/param-headers.js';
import {
  META_CLIENT_CAPABILITIES,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
  REMOVED_METHODS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '../protocol/versions.js';
import { isContentBlock, renderText } from './content.js';
import { InProcessEventBus, type McpEvent, type McpEventBus } from './event-bus.js';
import { capabilityNeededFor, clientSupports, InputRequired, isAnyInputResponse, isInputResponseFor } from './input-required.js';
import { chainInterceptors, describeCall, type McpCall, type McpCallInterceptor } from './mcp-call.js';
import { CallGuard, DeadlineExceeded } from './call-guard.js';
import { HandlerErrorPolicy, type HandlerErrorLogger } from './handler-error.policy.js';
import { McpContext } from './mcp-context.js';
import type { PagedList } from './paged-list.js';
import { PromptRegistry, type PromptRegistration } from './prompt.registry.js';
import { canonicalDigest, RequestStateCodec, StateBinding } from './request-state.codec.js';
import { InMemoryRequestStateStore, type RequestStateStore } from './request-state.store.js';
import { hasScopes, insufficientScope } from './required-scopes.js';
import {
  ResourceRegistry,
  type ResourceReadValue,
  type ResourceRegistration,
  type ResourceTemplateRegistration,
} from './resource.registry.js';
import { SchemaCompiler } from './schema-compiler.js';
import { ToolError } from './tool-error.js';
import { ToolRegistry, type ToolHandler, type ToolRegistration } from './tool.registry.js';
import { StartTask } from './active-task.js';
import { TaskMethods } from './methods/tasks.methods.js';
import { TaskRunner, type TaskOptions } from './task-runner.js';
import { taskOwnerOf } from './task-owner.js';
import { ToolTasks, type ToolSettlement } from './tool-tasks.js';
import { declaresTasksExtension, TASKS_EXTENSION, tasksExtensionRequired } from '../protocol/tasks.js';

/** The server's identity (`name`, `version`, optional title, description, website, icons) is sent as `serverInfo`. */
export interface McpServerOptions extends Implementation {
  /** Returned by `server/discover` to tell the model how to use this server. */
  instructions?: string;
  /** Items per page of every list method. Default 100. */
  pageSize?: number;
  /** Caching hints (SEP-2549) for discover, list pages and resource reads. */
  cache?: { discover?: Partial<CacheHints>; lists?: Partial<CacheHints>; resources?: Partial<CacheHints> };
  /** Secret(s) that sign `requestState`; an array rotates keys (sign with the first, accept any). */
  requestStateSecret?: string | string[];
  /** How long a multi-round request state stays valid. Default 10 minutes. */
  requestStateTtlMs?: number;
  /** Remembers consumed states for tools registered with `singleUseState`; in-memory (one instance) by default. */
  requestStateStore?: RequestStateStore;
  /** Carries list-changed and resource-updated events to listen streams; in-process by default. */
  eventBus?: McpEventBus;
  /** Most `subscriptions/listen` streams open at once. Default 1000. */
  maxSubscriptions?: number;
  /** Wall-clock deadline of one request (any method but `subscriptions/listen`); its handler's signal fires. Default 60 s; 0 disables. */
  callTimeoutMs?: number;
  /** Most requests running at once (any method but `subscriptions/listen`); the excess is refused with -32603 "Server busy", never queued. Default 256. */
  maxConcurrentCalls?: number;
  /**
   * Replace the message of an unexpected handler error (anything but `ToolError` and `McpError`) with a generic
   * text and a correlation id. Default: on when `NODE_ENV` is `production`.
   */
  redactErrors?: boolean;
  /** Receives every unexpected handler error with its correlation id (the server-side log). */
  onHandlerError?: HandlerErrorLogger;
  /** Tool calls as tasks (tools registered with `taskSupport`): where they are kept, for how long, how many. */
  tasks?: TaskOptions;
}

/** What a transport knows about a request; every field is optional and the kernel works without any. */
export interface McpRequestContext {
  /** Request headers (lower-case names), for tool-specific `Mcp-Param-*` checks. */
  headers?: HeaderBag;
  /** Fires when the client goes away or the transport gives up: the handler's signal follows it. */
  signal?: AbortSignal;
  /** Where notifications for this request go (progress, log, listen events). Without it none are sent. */
  notify?: (notification: JsonRpcNotification) => void;
  /** The transport's own request object, handed to handlers as `context.httpRequest`. */
  httpRequest?: unknown;
  /** The authenticated principal; bound into request-state signatures. */
  principal?: unknown;
  /**
   * The OAuth scopes granted to the caller. Primitives registered with `requiredScopes` are listed and callable
   * only when all of theirs are granted; without this field none are granted, so such primitives fail closed.
   */
  scopes?: readonly string[];
  /**
   * When the caller's credential expires, in milliseconds since the epoch: a listen stream ends then, with its
   * closing result, so notifications stop reaching a caller whose token is no longer valid. Absent: never.
   */
  credentialExpiresAt?: number;
  /**
   * Subscribes to the transport giving up on the request (the client went away, shutdown), as a cheaper
   * alternative to `signal`: the kernel then builds no AbortController for calls whose handlers never look.
   */
  onAbort?(listener: (reason: unknown) => void): () => void;
}

type MethodHandler = (request: JsonRpcRequest, context: McpRequestContext) => Promise<Record<string, unknown>>;

/** What travels between rounds, signed: the round, the handler's state, earlier answers and what was asked. */
interface SealedState {
  r: number;
  s?: unknown;
  a?: InputResponses;
  q?: Record<string, InputRequest['method']>;
}

const INPUT_METHODS: ReadonlySet<unknown> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);
const INPUT_REQUIRED_TEXT = 'Additional client input is required before this tool can finish.';
const DEFAULT_LIST_CACHE: CacheHints = { ttlMs: 60_000, cacheScope: 'public' };
const DEFAULT_READ_CACHE: CacheHints = { ttlMs: 0, cacheScope: 'private' };
const RETRY_CACHE: CacheHints = { ttlMs: 0, cacheScope: 'private' };
// The signal of a request whose transport cannot be cancelled: one shared instance, never aborted.
const NEVER_ABORTED = new AbortController().signal;
const MAX_TIMER_DELAY = 2 ** 31 - 1;

/**
 * The transport-free MCP server: one JSON-RPC message in, one response out. Everything a request needs is
 * compiled when things are registered (validators, header rules, list pages), so a request does a map lookup,
 * a validation and a call. Nothing about a request is kept once it is answered.
 */
export class McpKernel {
  protected readonly options: McpServerOptions;
  private readonly schemas = new SchemaCompiler();
  private readonly tools: ToolRegistry;
  private readonly resources: ResourceRegistry;
  private readonly prompts: PromptRegistry;
  private readonly states: RequestStateCodec;
  private readonly stateStore: RequestStateStore;
  private readonly eventBus: McpEventBus;
  private readonly methods: ReadonlyMap<string, MethodHandler>;
  private readonly serverInfo: Record<string, unknown>;
  private readonly listCache: CacheHints;
  private readonly readCache: CacheHints;
  private readonly discoverCache: CacheHints;
  private readonly closing = new AbortController();
  private openSubscriptions = 0;
  private interceptor?: McpCallInterceptor;
  /** The call interceptors see, per request being processed, so a handler's error can be attached to it. */
  private readonly calls: CallGuard;
  private readonly errors: HandlerErrorPolicy;
  private readonly taskRunner: TaskRunner;
  private readonly toolTasks: ToolTasks;

  constructor(options: McpServerOptions) {
    if (!options || typeof options.name !== 'string' || typeof options.version !== 'string') {
      throw new Error('MCP server options need a "name" and a "version" (strings)');
    }
    this.options = options;
    const pageSize = options.pageSize ?? 100;
    this.tools = new ToolRegistry(this.schemas, pageSize, () => this.publish({ type: 'tools/list_changed' }));
    this.resources = new ResourceRegistry(pageSize, () => this.publish({ type: 'resources/list_changed' }));
    this.prompts = new PromptRegistry(pageSize, () => this.publish({ type: 'prompts/list_changed' }));
    this.states = new RequestStateCodec({ secret: options.requestStateSecret, ttlMs: options.requestStateTtlMs });
    this.stateStore = options.requestStateStore ?? new InMemoryRequestStateStore();
    this.eventBus = options.eventBus ?? new InProcessEventBus();
    // Every open listen stream waits on this one signal; that many listeners is the design, not a leak.
    setMaxListeners(0, this.closing.signal);
    this.calls = new CallGuard(options.callTimeoutMs ?? 60_000, options.maxConcurrentCalls ?? 256);
    const redact = options.redactErrors ?? process.env.NODE_ENV === 'production';
    // Redacted details must still reach someone: without a logger of its own, the kernel writes to stderr.
    const log = options.onHandlerError ?? (redact ? (error: unknown, report: object) => console.error('MCP handler error', report, error) : undefined);
    this.errors = new HandlerErrorPolicy(redact, () => this.correlationId(), log);
    this.serverInfo = Object.fromEntries(
      Object.entries({
        name: options.name,
        version: options.version,
        title: options.title,
        description: options.description,
        websiteUrl: options.websiteUrl,
        icons: options.icons,
      }).filter(([, v]) => v !== undefined),
    );
    this.listCache = cacheHints(options.cache?.lists, DEFAULT_LIST_CACHE);
    this.readCache = cacheHints(options.cache?.resources, DEFAULT_READ_CACHE);
    this.discoverCache = cacheHints(options.cache?.discover, DEFAULT_LIST_CACHE);
    this.taskRunner = new TaskRunner(options.tasks, (owner, task) => this.publish({ type: 'tasks/status', owner, task }));
    this.toolTasks = new ToolTasks(this.taskRunner, this.schemas);
    const tasks = new TaskMethods(this.taskRunner, this.schemas);
    this.methods = new Map<string, MethodHandler>([
      ['server/discover', async () => this.discover()],
      ['tools/list', (req, ctx) => this.listTools(req, ctx)],
      ['tools/call', (req, ctx) => this.callTool(req, ctx)],
      ['resources/list', async (req, ctx) => this.list(this.resources.size > 0, 'resources', this.resources.listing, req, ctx)],
      ['resources/templates/list', async (req, ctx) => this.list(this.resources.size > 0, 'resourceTemplates', this.resources.templateListing, req, ctx)],
      ['resources/read', (req, ctx) => this.readResource(req, ctx)],
      ['prompts/list', async (req, ctx) => this.list(this.prompts.size > 0, 'prompts', this.prompts.listing, req, ctx)],
      ['prompts/get', (req, ctx) => this.getPrompt(req, ctx)],
      ['completion/complete', (req, ctx) => this.complete(req, ctx)],
      ['subscriptions/listen', (req, ctx) => this.listen(req, ctx)],
      ['tasks/get', async (req, ctx) => ({ ...(await tasks.get(req, ctx)) })],
      ['tasks/update', (req, ctx) => tasks.update(req, ctx)],
      ['tasks/cancel', (req, ctx) => tasks.cancel(req, ctx)],
    ]);
  }

  /** Calls running now and listen streams open now, for health checks and load tests. */
  get load(): { calls: number; subscriptions: number } {
    return { calls: this.calls.inFlight, subscriptions: this.openSubscriptions };
  }

  /** True when no `requestStateSecret` was given and a per-process key signs request state. */
  get usesGeneratedStateSecret(): boolean {
    return this.states.generatedSecret;
  }

  // ----- registration -------------------------------------------------------------------------------------

  /** Registers a tool from its name, description, JSON Schema `inputSchema` and handler. */
  registerTool(name: string, description: string, schema: object, handler: ToolHandler): void {
    this.tools.add({ name, description, inputSchema: schema as Record<string, unknown>, handler });
  }

  /** Registers a tool with every option the spec allows (title, outputSchema, annotations, icons, _meta). */
  addTool(registration: ToolRegistration): void {
    this.tools.add(registration);
  }

  removeTool(name: string): boolean {
    return this.tools.remove(name);
  }

  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  addResource(registration: ResourceRegistration): void {
    this.resources.addResource(registration);
  }

  addResourceTemplate(registration: ResourceTemplateRegistration): void {
    this.resources.addTemplate(registration);
  }

  removeResource(uri: string): boolean {
    return this.resources.removeResource(uri);
  }

  removeResourceTemplate(uriTemplate: string): boolean {
    return this.resources.removeTemplate(uriTemplate);
  }

  addPrompt(registration: PromptRegistration): void {
    this.prompts.add(registration);
  }

  removePrompt(name: string): boolean {
    return this.prompts.remove(name);
  }

  /** Tells listen streams that subscribed to this resource that it changed. */
  notifyResourceUpdated(uri: string): void {
    this.publish({ type: 'resources/updated', uri });
  }

  /** Ends every open listen stream with its closing result; later listens are refused. */
  close(): void {
    this.closing.abort();
    this.taskRunner.close();
  }

  // ----- the kernel ---------------------------------------------------------------------------------------

  /**
   * Processes one JSON-RPC message. Returns the response object, or undefined for a notification (which gets
   * no response). Never throws: every failure becomes a JSON-RPC error or an `isError` tool result.
   */
  async handleRequest(message: unknown, context: McpRequestContext = {}): Promise<JsonRpcResponse | undefined> {
    const verdict = classifyMessage(message);
    if (verdict.kind === 'invalid') return verdict.response;
    if (verdict.kind === 'notification') return undefined;
    const { request } = verdict;
    if (request.method === 'initialize') return initializeRemovedError(request);
    return checkProtocolVersion(request) ?? this.dispatch(request, context);
  }

  /**
   * Dispatches a request that already passed the classifier's message and version rungs (as a transport that
   * runs `classifyMessage` and `classifyHttpRequest` itself has done), so they are not run twice per request.
   */
  async dispatch(request: JsonRpcRequest, context: McpRequestContext = {}): Promise<JsonRpcResponse> {
    const handler = REMOVED_METHODS.has(request.method) ? undefined : this.methods.get(request.method);
    if (!handler) return errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    // The one place a dispatched call is wrapped (logging, tracing, metrics); without interceptors, no cost.
    const call = this.interceptor && describeCall(request, context.httpRequest);
    const respond = async (): Promise<JsonRpcResponse> => {
      try {
        // A listen stream is long-lived by design and has its own cap; every other call is bounded.
        const result =
          request.method === 'subscriptions/listen'
            ? await handler(request, context)
            : await this.calls.run(context, (signal) => handler(request, new CallContext(context, signal, call || undefined)));
        return successResponse(request.id, this.stamp(result));
      } catch (error) {
        if (error instanceof DeadlineExceeded && request.method === 'tools/call') {
          return successResponse(request.id, this.stamp(toolError(`Error: ${error.message}`)));
        }
        if (error instanceof McpError) return errorResponse(request.id, error.code, error.message, error.data);
        if (call) call.error = error;
        return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
      }
    };
    if (!call) return respond();
    try {
      return await this.interceptor!(call, respond);
    } catch (error) {
      // Interceptors are application code (loggers, tracers, metrics): one that throws must not turn the answer
      // into a rejected promise, which a transport can only send as a bare 500. The log gets the exception.
      this.interceptorFailed(error, call);
      return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
    }
  }

  /** Where the exception of an interceptor goes: the handler-error log (`onHandlerError`). */
  protected interceptorFailed(error: unknown, call: McpCall): void {
    this.errors.clientMessage(error, { method: call.method, name: call.name ?? call.uri, requestId: call.requestId });
  }

  /** Adds an interceptor around every dispatched call; each one added wraps those added before it. */
  intercept(interceptor: McpCallInterceptor): void {
    this.interceptor = chainInterceptors(this.interceptor, interceptor);
  }

  /** Adds what every result carries: `resultType` and the server's identity in `_meta`. */
  private stamp(result: Record<string, unknown>): Record<string, unknown> {
    if (result.resultType === undefined) result.resultType = 'complete';
    // Assigned, not a computed key in the literal: V8 defines those through a runtime call, on every response.
    const meta: Record<string, unknown> = isPlainObject(result._meta) ? { ...result._meta } : {};
    meta[META_SERVER_INFO] = this.serverInfo;
    result._meta = meta;
    return result;
  }

  private publish(event: McpEvent): void {
    // A remote bus that is down must neither fail the registration nor, as an unhandled rejection, end the
    // process: listen streams miss this change, and stderr says so.
    Promise.resolve(this.eventBus.publish(event)).catch((error: unknown) => console.error('MCP event bus: publish failed', event, error));
  }

  private capabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = {};
    if (this.tools.size > 0) capabilities.tools = { listChanged: true };
    if (this.prompts.size > 0) capabilities.prompts = { listChanged: true };
    if (this.resources.size > 0) capabilities.resources = { subscribe: true, listChanged: true };
    if (this.hasCompletions()) capabilities.completions = {};
    capabilities.logging = {};
    if (this.tools.hasTaskTools) capabilities.extensions = { [TASKS_EXTENSION]: {} };
    return capabilities;
  }

  private hasCompletions(): boolean {
    return this.prompts.hasCompleters || this.resources.hasCompleters;
  }

  private discover(): Record<string, unknown> {
    const result: Record<string, unknown> = {
      supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      capabilities: this.capabilities(),
      ...this.discoverCache,
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }

  /**
   * A list method is gated by its capability: without anything registered it does not exist (-32601). A list
   * that holds scoped primitives differs per caller, so every page of it is `cacheScope: "private"`.
   */
  private list<T>(available: boolean, key: string, listing: PagedList<T>, request: JsonRpcRequest, context: McpRequestContext): Record<string, unknown> {
    if (!available) throw McpError.methodNotFound(`${key === 'resourceTemplates' ? 'resources/templates' : key}/list`);
    const { items, nextCursor } = listing.page(request.params?.cursor, grantedScopes(context));
    const result: Record<string, unknown> = { [key]: items, ...this.listCache };
    if (listing.scoped) result.cacheScope = 'private';
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    return result;
  }

  // ----- tools ----------------------------------------------------------------------------------------------

  /** The cached page, minus the tools whose visibility rule hides them from this request (then the page is private). */
  private async listTools(request: JsonRpcRequest, transport: McpRequestContext): Promise<Record<string, unknown>> {
    const result = this.list(this.tools.size > 0, 'tools', this.tools.listing, request, transport);
    if (!this.tools.hasConditionalTools) return result;
    const tools = result.tools as ToolDefinition[];
    // A list request carries no request state: the context only describes who is asking.
    const context = await this.createContext({ ...request, params: { _meta: request.params?._meta } }, transport, this.binding(request.method, '', {}, undefined));
    const shown = await Promise.all(tools.map((tool) => this.tools.get(tool.name)?.visible?.(context) ?? true));
    return { ...result, tools: tools.filter((_, i) => shown[i]), cacheScope: 'private' };
  }

  private async callTool(request: JsonRpcRequest, transport: McpRequestContext): Promise<Record<string, unknown>> {
    const params = request.params ?? {};
    if (typeof params.name !== 'string') throw McpError.invalidParams('Invalid params: "name" must be a string');
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isPlainObject(args)) throw McpError.invalidParams('Invalid params: "arguments" must be an object');
    const entry = this.tools.get(params.name);
    if (!entry) return toolError('Tool not found');
    authorize(entry.requiredScopes, transport, `tool "${params.name}"`);

    if (transport.headers && entry.paramHeaders.length > 0) {
      const mismatch = checkParamHeaders(entry.paramHeaders, args, transport.headers);
      if (mismatch) throw new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
    }
    const clientCapabilities = clientCapabilitiesOf(request);
    if (entry.requiredCapabilities && clientCapabilities) {
      const missing = missingCapabilities(entry.requiredCapabilities, clientCapabilities);
      if (missing) throw McpError.missingCapabilities(missing);
    }

    const mode = this.toolTasks.mode(entry, request);

    const binding = this.binding(request.method, params.name, args, transport.principal);
    const context = await this.createContext(request, transport, binding, entry.singleUseState, mode === 'deferred');
    const invalid = entry.input.validate(args);
    if (invalid) return toolError(invalid);
    if (mode === 'task') return this.toolTasks.start(entry, args, context, this.settlement(request, params.name, entry.output));

    let value: unknown;
    try {
      value = await entry.handler(args, context.inputResponses, context);
    } catch (error) {
      if (error instanceof StartTask && mode === 'deferred') return this.toolTasks.start(entry, args, context, this.settlement(request, params.name, entry.output));
      if (error instanceof InputRequired) return this.inputRequired(error, context, binding, request, true);
      if (error instanceof McpError) throw error;
      return toolError(`Error: ${this.clientMessage(error, request, params.name, transport)}`);
    }
    if (value instanceof InputRequired) return this.inputRequired(value, context, binding, request, true);
    return this.toolResult(value, entry.output);
  }

  /** How a task's handler outcome becomes its result; the call it came from was answered long ago. */
  private settlement(request: JsonRpcRequest, name: string, output: ToolEntryOutput): ToolSettlement {
    return {
      result: (value) => this.toolResult(value, output),
      failure: (error) => toolError(`Error: ${this.clientMessage(error, request, name, {})}`),
    };
  }

  private toolResult(value: unknown, output: ToolEntryOutput): Record<string, unknown> {
    if (isPlainObject(value) && Array.isArray(value.content)) {
      const result = { ...value };
      if (output && !result.isError) {
        const invalid = output.validate(result.structuredContent);
        if (invalid) return toolError(`Error: output does not match the tool's outputSchema: ${invalid}`);
      }
      return result;
    }
    if (output) {
      const invalid = output.validate(value);
      if (invalid) return toolError(`Error: output does not match the tool's outputSchema: ${invalid}`);
      return { content: [{ type: 'text', text: renderText(value) }], structuredContent: value };
    }
    if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return { content: value };
    if (isContentBlock(value)) return { content: [value] };
    if (value === undefined || value === null) return { content: [] };
    return { content: [{ type: 'text', text: renderText(value) }] };
  }

  // ----- resources ------------------------------------------------------------------------------------------

  private async readResource(request: JsonRpcRequest, transport: McpRequestContext): Promise<Record<string, unknown>> {
    if (this.resources.size === 0) throw McpError.methodNotFound(request.method);
    const uri = request.params?.uri;
    if (typeof uri !== 'string') throw McpError.invalidParams('Invalid params: "uri" must be a string');
    const match = this.resources.match(uri);
    if (!match) throw McpError.invalidParams(`Resource not found: ${uri}`, { uri });
    authorize(match.requiredScopes, transport, `resource "${uri}"`);
    const binding = this.binding(request.method, uri, {}, transport.principal);
    const context = await this.createContext(request, transport, binding);
    let value: ResourceReadValue | InputRequired;
    try {
      value = await match.handler(uri, match.variables, context);
    } catch (error) {
      return this.handlerFailure(error, context, binding, request, transport);
    }
    if (value instanceof InputRequired) return this.inputRequired(value, context, binding, request, false);
    const contents = resourceContents(value, uri, match.mimeType);
    const extra = isPlainObject(value) && 'contents' in value ? value : {};
    // A read completed by a retry depends on the user's answers: it must not be cached (spec, caching).
    const isRetry = request.params?.inputResponses !== undefined || request.params?.requestState !== undefined;
    const result = { ...extra, contents, ...(isRetry ? RETRY_CACHE : { ...this.readCache, ...stripUndefinedHints(match.cache) }) };
    // A shared cache must not hand a scoped resource to callers without the scope.
    if (match.requiredScopes) result.cacheScope = 'private';
    return result;
  }

  // ----- prompts --------------------------------------------------------------------------------------------

  private async getPrompt(request: JsonRpcRequest, transport: McpRequestContext): Promise<Record<string, unknown>> {
    if (this.prompts.size === 0) throw McpError.methodNotFound(request.method);
    const params = request.params ?? {};
    if (typeof params.name !== 'string') throw McpError.invalidParams('Invalid params: "name" must be a string');
    const prompt = this.prompts.get(params.name);
    if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${params.name}`);
    authorize(prompt.requiredScopes, transport, `prompt "${params.name}"`);
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isPlainObject(args) || !Object.values(args).every((v) => typeof v === 'string')) {
      throw McpError.invalidParams('Invalid params: prompt "arguments" must be an object of strings');
    }
    for (const argument of prompt.arguments ?? []) {
      if (argument.required && !Object.hasOwn(args, argument.name)) {
        throw McpError.invalidParams(`Missing required argument: ${argument.name}`);
      }
    }
    const binding = this.binding(request.method, params.name, args, transport.principal);
    const context = await this.createContext(request, transport, binding);
    let value: unknown;
    try {
      value = await prompt.handler(args as Record<string, string>, context);
    } catch (error) {
      return this.handlerFailure(error, context, binding, request, transport);
    }
    if (value instanceof InputRequired) return this.inputRequired(value, context, binding, request, false);
    if (typeof value === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
    if (Array.isArray(value)) return { messages: value as PromptMessage[] };
    if (isPlainObject(value) && Array.isArray(value.messages)) return { ...value };
    throw new McpError(ErrorCode.InternalError, `Prompt "${params.name}" returned no messages`);
  }

  // ----- completion -----------------------------------------------------------------------------------------

  private async complete(request: JsonRpcRequest, transport: McpRequestContext): Promise<Record<string, unknown>> {
    if (!this.hasCompletions()) throw McpError.methodNotFound(request.method);
    const params = request.params ?? {};
    const ref = params.ref;
    const argument = params.argument;
    if (!isPlainObject(ref) || !isPlainObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw McpError.invalidParams('Invalid params: completion needs "ref" and "argument" {name, value}');
    }
    const contextArgs = isPlainObject(params.context) && isPlainObject(params.context.arguments) ? params.context.arguments : {};
    let completer;
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      completer = this.prompts.completer(ref.name, argument.name);
      if (completer === undefined) throw McpError.invalidParams(`Unknown prompt: ${ref.name}`);
      authorize(this.prompts.get(ref.name)?.requiredScopes, transport, `prompt "${ref.name}"`);
    } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      completer = this.resources.completer(ref.uri, argument.name);
      if (completer === undefined) throw McpError.invalidParams(`Unknown resource template: ${ref.uri}`);
      authorize(this.resources.templateScopes(ref.uri), transport, `resource template "${ref.uri}"`);
    } else {
      throw McpError.invalidParams('Invalid params: "ref" must be a ref/prompt or ref/resource reference');
    }
    const all = completer ? await completer(argument.value, { arguments: contextArgs as Record<string, string> }) : [];
    const values = Array.isArray(all) ? all.filter((v) => typeof v === 'string') : [];
    return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
  }

  // ----- subscriptions --------------------------------------------------------------------------------------

  private async listen(request: JsonRpcRequest, transport: McpRequestContext): Promise<Record<string, unknown>> {
    const notify = transport.notify;
    if (!notify) throw McpError.methodNotFound(`${request.method} (it needs a streaming transport)`);
    const filter = isPlainObject(request.params?.notifications) ? request.params.notifications : {};
    const honoured: Record<string, unknown> = {};
    if (filter.toolsListChanged === true && this.tools.size > 0) honoured.toolsListChanged = true;
    if (filter.promptsListChanged === true && this.prompts.size > 0) honoured.promptsListChanged = true;
    if (filter.resourcesListChanged === true && this.resources.size > 0) honoured.resourcesListChanged = true;
    const watched = Array.isArray(filter.resourceSubscriptions)
      ? filter.resourceSubscriptions.filter((u): u is string => typeof u === 'string')
      : [];
    if (watched.length > 0 && this.resources.size > 0) honoured.resourceSubscriptions = watched;
    const taskIds = Array.isArray(filter.taskIds) ? filter.taskIds.filter((id): id is string => typeof id === 'string') : [];
    if (taskIds.length > 0) {
      if (!declaresTasksExtension(request)) throw tasksExtensionRequired();
      honoured.taskIds = taskIds;
    }
    if (this.closing.signal.aborted) throw new McpError(ErrorCode.InternalError, 'Server is shutting down');
    if (this.openSubscriptions >= (this.options.maxSubscriptions ?? 1000)) {
      throw new McpError(ErrorCode.InternalError, 'Subscription limit reached');
    }

    const subscriptionMeta = { [META_SUBSCRIPTION_ID]: request.id };
    const send = (method: string, params: Record<string, unknown> = {}) =>
      notify({ jsonrpc: '2.0', method, params: { ...params, _meta: subscriptionMeta } });
    send('notifications/subscriptions/acknowledged', { notifications: honoured });

    const watchedSet = new Set(watched);
    const taskSet = new Set(taskIds);
    const owner = taskOwnerOf(transport.principal);
    this.openSubscriptions++;
    const unsubscribe = this.eventBus.subscribe((event) => {
      if (event.type === 'tools/list_changed' && honoured.toolsListChanged) send('notifications/tools/list_changed');
      else if (event.type === 'prompts/list_changed' && honoured.promptsListChanged) send('notifications/prompts/list_changed');
      else if (event.type === 'resources/list_changed' && honoured.resourcesListChanged) send('notifications/resources/list_changed');
      else if (event.type === 'resources/updated' && watchedSet.has(event.uri)) send('notifications/resources/updated', { uri: event.uri });
      else if (event.type === 'tasks/status' && event.owner === owner && taskSet.has(event.task.taskId)) send('notifications/tasks', { ...event.task });
    });
    try {
      await untilStopped(transport, this.closing.signal);
    } finally {
      unsubscribe();
      this.openSubscriptions--;
    }
    return { _meta: subscriptionMeta };
  }

  // ----- input_required -------------------------------------------------------------------------------------

  /** Binds request state to what created it: the method, the primitive, its arguments and the principal. */
  private binding(method: string, name: string, args: unknown, principal: unknown): StateBinding {
    return new StateBinding(method, name, args, principal);
  }

  /**
   * Builds the handler's context from a request. A `requestState` is verified (signature, expiry, binding)
   * before anything else and a failure ends the call with -32602, so a handler never runs on forged state;
   * with `singleUse`, the state's id is also consumed in the store, and a replay is rejected the same way.
   */
  private async createContext(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    binding: StateBinding,
    singleUse = false,
    mayStartTask = false,
  ): Promise<McpContext> {
    const params = request.params ?? {};
    const meta = isPlainObject(params._meta) ? params._meta : {};
    const logLevel = meta['io.modelcontextprotocol/logLevel'];
    if (logLevel !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(logLevel)) {
      throw McpError.invalidParams(`Invalid params: unknown log level ${JSON.stringify(logLevel)}`);
    }
    const sent = params.inputResponses;
    if (sent !== undefined && !isPlainObject(sent)) throw McpError.invalidParams('Invalid params: "inputResponses" must be an object');
    let state: SealedState = { r: 0 };
    if (params.requestState !== undefined) {
      const opened = this.states.open<SealedState>(params.requestState, binding.digest);
      if (!opened.ok) throw McpError.invalidParams('Invalid or expired requestState', { reason: 'invalid_request_state', detail: opened.reason });
      if (singleUse && !(await this.stateStore.consume(opened.id, opened.expiresAt))) {
        throw McpError.invalidParams('requestState has already been used', { reason: 'request_state_replayed' });
      }
      state = opened.payload;
    }
    // A first round (no answers, no state) is most calls: no filtering to do.
    const inputResponses = sent === undefined && state.a === undefined ? {} : acceptedAnswers(sent ?? {}, state);
    return new McpContext({
      requestId: request.id,
      method: request.method,
      meta: meta as MetaObject,
      signal: () => transport.signal ?? NEVER_ABORTED,
      notify: transport.notify,
      inputResponses,
      state: state.s,
      round: state.r,
      httpRequest: transport.httpRequest,
      principal: transport.principal,
      schemas: this.schemas,
      mayStartTask,
    });
  }

  private handlerFailure(
    error: unknown,
    context: McpContext,
    binding: StateBinding,
    request: JsonRpcRequest,
    transport: McpRequestContext,
  ): Record<string, unknown> {
    if (error instanceof InputRequired) return this.inputRequired(error, context, binding, request, false);
    if (error instanceof McpError) throw error;
    const name = typeof request.params?.name === 'string' ? request.params.name : (request.params?.uri as string | undefined);
    throw new McpError(ErrorCode.InternalError, `Error: ${this.clientMessage(error, request, name, transport)}`);
  }

  /** What the client may read of an unexpected handler error; the interceptors' call learns the error and its id. */
  private clientMessage(error: unknown, request: JsonRpcRequest, name: string | undefined, transport: McpRequestContext): string {
    const call = transport instanceof CallContext ? transport.call : undefined;
    const correlationId = this.correlationId();
    if (call && !(error instanceof ToolError)) {
      call.error = error;
      call.correlationId = correlationId;
    }
    return this.errors.clientMessage(error, { method: request.method, name, requestId: request.id }, correlationId);
  }

  /**
   * Turns an input request into the interim result. Requests the client did not declare a capability for are
   * left out (the spec forbids sending them); when nothing is left, the call cannot proceed: -32021. The
   * answers gathered so far travel in the signed state, so the next round sees all of them.
   */
  private inputRequired(
    signal: InputRequired,
    context: McpContext,
    binding: StateBinding,
    request: JsonRpcRequest,
    isToolCall: boolean,
  ): Record<string, unknown> {
    const declared = clientCapabilitiesOf(request);
    const kept: Array<[string, InputRequest]> = [];
    let missing: ClientCapabilities | undefined;
    for (const [key, inputRequest] of Object.entries(signal.requests)) {
      if (!INPUT_METHODS.has(inputRequest?.method)) {
        throw new McpError(ErrorCode.InternalError, `Error: input request "${key}" must be elicitation/create, sampling/createMessage or roots/list`);
      }
      if (!declared || clientSupports(declared, inputRequest)) kept.push([key, inputRequest]);
      else missing = mergeCapabilities(missing, capabilityNeededFor(inputRequest));
    }
    if (kept.length === 0) {
      if (missing) throw McpError.missingCapabilities(missing);
      throw new McpError(ErrorCode.InternalError, 'Error: input was required but no input request was given');
    }
    // Answers this round did not ask for again are settled: they travel signed and win over a resent copy.
    const requests: InputRequests = Object.fromEntries(kept);
    const settled = Object.entries(context.inputResponses).filter(([key]) => !Object.hasOwn(requests, key));
    const sealed: SealedState = { r: context.round + 1, q: Object.fromEntries(kept.map(([key, { method }]) => [key, method])) };
    if (settled.length > 0) sealed.a = Object.fromEntries(settled);
    const state = signal.options.state !== undefined ? signal.options.state : context.state;
    if (state !== undefined) sealed.s = state;
    const result: Record<string, unknown> = {
      resultType: 'input_required',
      inputRequests: requests,
      requestState: this.states.seal(sealed, binding.digest),
    };
    if (isToolCall) {
      result.requests = requests;
      result.content = [{ type: 'text', text: INPUT_REQUIRED_TEXT }];
    }
    return result;
  }

  /** A fresh id for log correlation. */
  protected correlationId(): string {
    return randomUUID();
  }
}

type ToolEntryOutput = { validate(value: unknown): string | null } | undefined;

/** The transport's context with the call's own (deadline-bound, lazily built) signal in place of the transport's. */
/**
 * The context a method handler gets: the transport's, with the call's own signal and the interceptors' view of
 * the call (where an unexpected error is reported). Both travel with the call, and the signal is a getter on
 * the prototype. An object literal with a per-call getter closure gets a new hidden class per call, reachable
 * from the shared one through a transition the young-generation collector keeps alive; a table keyed by
 * request (a WeakMap) is kept alive the same way. Either held every request's objects until a full collection:
 * under load all of them were promoted (docs/performance.md).
 */
class CallContext implements McpRequestContext {
  readonly headers: HeaderBag | undefined;
  readonly notify: ((notification: JsonRpcNotification) => void) | undefined;
  readonly httpRequest: unknown;
  readonly principal: unknown;
  readonly scopes: readonly string[] | undefined;
  readonly credentialExpiresAt: number | undefined;

  constructor(
    context: McpRequestContext,
    private readonly signalOf: () => AbortSignal,
    readonly call: McpCall | undefined,
  ) {
    this.headers = context.headers;
    this.notify = context.notify;
    this.httpRequest = context.httpRequest;
    this.principal = context.principal;
    this.scopes = context.scopes;
    this.credentialExpiresAt = context.credentialExpiresAt;
  }

  get signal(): AbortSignal {
    return this.signalOf();
  }
}

function toolError(text: string): Record<string, unknown> {
  return { isError: true, content: [{ type: 'text', text }] };
}

function grantedScopes(context: McpRequestContext): ReadonlySet<string> {
  return new Set(context.scopes);
}

/** Refuses the request unless the caller holds every scope the primitive requires. */
function authorize(required: readonly string[] | undefined, context: McpRequestContext, what: string): void {
  if (required && !hasScopes(required, grantedScopes(context))) throw insufficientScope(what, required);
}

function cacheHints(given: Partial<CacheHints> | undefined, fallback: CacheHints): CacheHints {
  const hints = { ...fallback, ...stripUndefinedHints(given) };
  if (!Number.isSafeInteger(hints.ttlMs) || hints.ttlMs < 0) throw new Error(`cache ttlMs must be an integer >= 0, got ${hints.ttlMs}`);
  if (hints.cacheScope !== 'public' && hints.cacheScope !== 'private') {
    throw new Error(`cache cacheScope must be "public" or "private", got ${JSON.stringify(hints.cacheScope)}`);
  }
  return hints;
}

function stripUndefinedHints(hints: Partial<CacheHints> | undefined): Partial<CacheHints> {
  const out: Partial<CacheHints> = {};
  if (hints?.ttlMs !== undefined) out.ttlMs = hints.ttlMs;
  if (hints?.cacheScope !== undefined) out.cacheScope = hints.cacheScope;
  return out;
}

/**
 * The answers a handler sees. On a first call, every entry shaped like an answer; on a retry, only answers
 * to what the last round asked, each of the type asked for. Answers settled in earlier rounds come from the
 * signed state and win, so nothing a later round was built on can be swapped afterwards.
 */
function acceptedAnswers(sent: Record<string, unknown>, state: SealedState): InputResponses {
  const asked = state.q;
  const fresh = Object.entries(sent).filter(([key, value]) =>
    asked ? Object.hasOwn(asked, key) && isInputResponseFor(asked[key], value) : isAnyInputResponse(value),
  );
  return { ...(Object.fromEntries(fresh) as InputResponses), ...state.a };
}

function clientCapabilitiesOf(request: JsonRpcRequest): ClientCapabilities | undefined {
  const meta = request.params?._meta;
  if (!isPlainObject(meta) || !isPlainObject(meta[META_CLIENT_CAPABILITIES])) return undefined;
  return meta[META_CLIENT_CAPABILITIES] as ClientCapabilities;
}

/** The part of `required` the client did not declare, or undefined when it declared all of it. */
function missingCapabilities(required: ClientCapabilities, declared: ClientCapabilities): ClientCapabilities | undefined {
  let missing: ClientCapabilities | undefined;
  for (const [name, sub] of Object.entries(required)) {
    const have = declared[name];
    if (!isPlainObject(have)) {
      missing = mergeCapabilities(missing, { [name]: sub ?? {} });
      continue;
    }
    for (const subName of Object.keys(isPlainObject(sub) ? sub : {})) {
      if (!isPlainObject(have[subName])) missing = mergeCapabilities(missing, { [name]: { [subName]: {} } });
    }
  }
  return missing;
}

function mergeCapabilities(into: ClientCapabilities | undefined, add: ClientCapabilities): ClientCapabilities {
  const out: ClientCapabilities = { ...(into ?? {}) };
  for (const [name, sub] of Object.entries(add)) {
    out[name] = { ...(isPlainObject(out[name]) ? out[name] : {}), ...(isPlainObject(sub) ? sub : {}) };
  }
  return out;
}

function resourceContents(value: ResourceReadValue, uri: string, mimeType: string | undefined): ResourceContents[] {
  if (typeof value === 'string') return [withMime({ uri, text: value }, mimeType)];
  if (value instanceof Uint8Array) return [withMime({ uri, blob: Buffer.from(value).toString('base64') }, mimeType)];
  if (Array.isArray(value)) return value;
  if (isPlainObject(value) && Array.isArray(value.contents)) return value.contents as ResourceContents[];
  if (isPlainObject(value) && typeof value.uri === 'string') return [value as ResourceContents];
  throw new McpError(ErrorCode.InternalError, `Resource "${uri}" returned no contents`);
}

function withMime<T extends { uri: string }>(contents: T, mimeType: string | undefined): T {
  return mimeType === undefined ? contents : { ...contents, mimeType };
}

/**
 * Resolves when the server closes, the caller's credential expires, or the transport gives up on the request:
 * through its `onAbort` subscription when it has one (a transport may offer only that), else through its signal.
 */
function untilStopped(transport: McpRequestContext, closing: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let unsubscribe: (() => void) | undefined;
    let expiry: NodeJS.Timeout | undefined;
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      closing.removeEventListener('abort', stop);
      clearTimeout(expiry);
      unsubscribe?.();
      resolve();
    };
    if (closing.aborted) return stop();
    closing.addEventListener('abort', stop, { once: true });
    const expiresAt = transport.credentialExpiresAt;
    if (expiresAt !== undefined) {
      // setTimeout fires at once for a delay past 2^31-1 ms (about 24.8 days): a later expiry waits in steps.
      const arm = () => {
        const left = expiresAt - Date.now();
        expiry = left > MAX_TIMER_DELAY ? setTimeout(arm, MAX_TIMER_DELAY) : setTimeout(stop, Math.max(left, 0));
        // The open response holds the process; a pending expiry alone should not.
        expiry.unref();
      };
      arm();
    }
    if (transport.onAbort) {
      unsubscribe = transport.onAbort(stop);
    } else if (transport.signal) {
      const signal = transport.signal;
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      unsubscribe = () => signal.removeEventListener('abort', stop);
    }
    // A subscription that fired at once left nothing to undo.
    if (stopped) unsubscribe?.();
  });
}
