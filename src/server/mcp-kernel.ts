import { randomUUID } from 'node:crypto';
import { classifyMessage } from '../protocol/classifier.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { HeaderBag } from '../protocol/header-codec.js';
import { errorResponse, successResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import type { JsonSchema, ServerCapabilities } from '../protocol/mcp-types.js';
import { CallContext } from './call-context.js';
import { CallGuard, DeadlineExceeded } from './access/call-guard.js';
import { CallerIdentity, type Caller } from './access/caller-identity.js';
import { defaultShare } from './access/fair-share.js';
import { Era2026 } from './eras/era-2026.js';
import type { McpEra } from './eras/era.js';
import { InProcessEventBus, type McpEvent, type McpEventBus } from './events/event-bus.js';
import { HandlerErrorPolicy, type HandlerErrorLogger } from './errors/handler-error-policy.js';
import { HandlerFailure } from './errors/handler-failure.js';
import { McpConfigurationError } from './errors/configuration-error.js';
import { INVALID_LEGACY_MODE, MISSING_IDENTITY, REGISTRATION_FAILED } from './errors/configuration-messages.js';
import { rejectUnknownOptions } from './errors/unknown-options.js';
import { InputRound } from './input/input-round.js';
import { LegacyLeg } from './legacy/legacy-leg.js';
import { DEFAULT_LISTEN_LIMITS } from './events/listen-access.js';
import {
  chainInterceptors,
  describeByHeaders,
  describeCall,
  type McpCall,
  type McpCallInterceptor,
  type McpCallObserver,
} from './mcp-call.js';
import { consoleLogger, logHandlerError, type McpLogger } from './mcp-logger.js';
import type { McpRequestContext } from './mcp-request-context.js';
import { SERVER_OPTION_KEYS, type McpServerOptions } from './mcp-server-options.js';
import type { MethodHandler, MethodResult } from './method-result.js';
import { isThenable } from './util/when-ready.js';
import { CompletionMethods } from './methods/completion.js';
import { ListenMethods } from './methods/listen.js';
import { PromptMethods } from './methods/prompts.js';
import { ResourceMethods } from './methods/resources.js';
import { ServerMethods } from './methods/server.js';
import { TaskMethods } from './methods/tasks.js';
import { toolError, ToolMethods } from './methods/tools.js';
import { PromptRegistry, type PromptRegistration } from './registry/prompt-registry.js';
import { RequestStateCodec } from './input/request-state-codec.js';
import { InMemoryRequestStateStore } from './input/request-state-store.js';
import {
  ResourceRegistry,
  type ResourceRegistration,
  type ResourceTemplateRegistration,
} from './registry/resource-registry.js';
import { register, type RegistrationHandle } from './registry/registration-handle.js';
import { ScopeGate } from './access/scope-gate.js';
import { SchemaCompiler } from './schema/schema-compiler.js';
import type { InferSchemaInput } from './schema/mcp-schema.js';
import { toToolRegistration, type McpToolRegistration } from './registry/tool-registration.js';
import { serverInfoOf } from './server-info.js';
import { TaskRunner } from './tasks/task-runner.js';
import { ToolTasks } from './tasks/tool-tasks.js';
import type { QueuedTask } from './tasks/task-queue.js';
import { ToolRegistry, type ToolHandler, type ToolRegistrationOptions } from './registry/tool-registry.js';
import { uiLinkProblem } from './apps/ui-links.js';
import { SkillCatalog } from './skills/skill-catalog.js';
import { SkillMethods } from './skills/skill-methods.js';
import type { McpSkill } from './skills/skill-options.js';
import { toUiResourceRegistration, type UiResourceRegistration } from './apps/ui-resource.js';

/**
 * The transport-free MCP server: one JSON-RPC message in, one response out. Everything a request needs is
 * compiled when things are registered (validators, header rules, list pages), so a request does a map lookup,
 * a validation and a call. Nothing about a request is kept once it is answered.
 *
 * This class is the dispatcher: the method table (built once), the classifier, interceptors, the call guard
 * and deadline, and the mapping of failures to JSON-RPC errors. The methods themselves live in one class per
 * family (`methods/`), which answer era-neutral results (`method-result.ts`): the core result, a `Cacheable`
 * naming the cache hints that apply, or an `InterimResult` when a handler asked the client for input
 * (`input/input-round.ts`, the one place multi-round input lives).
 *
 * The era seam: what a protocol revision adds around the families is an `McpEra` (`eras/era.ts`): its version rung,
 * the methods it does not have, and `present`, which turns a family's answer into its result. `Era2026`
 * (`eras/era-2026.ts`) is the default: `resultType`, the server's identity in `_meta`, cache hints, the
 * `input_required` shape. A transport serving an earlier revision calls `dispatch(request, context, itsEra)`:
 * the same table, guard, interceptors and error mapping, with that era's presentation.
 */
export class McpKernel {
  private readonly tools: ToolRegistry;
  private readonly resources: ResourceRegistry;
  private readonly prompts: PromptRegistry;
  private readonly skills: SkillCatalog;
  private readonly states: RequestStateCodec;
  private readonly eventBus: McpEventBus;
  private readonly listen: ListenMethods;
  private readonly taskRunner: TaskRunner;
  private readonly toolCalls: ToolMethods;
  private readonly server: ServerMethods;
  private readonly methods: ReadonlyMap<string, MethodHandler>;
  private readonly era: Era2026;
  private readonly logger: McpLogger;
  private readonly interceptorLog: HandlerErrorLogger;
  private interceptor?: McpCallInterceptor;
  private observer?: McpCallObserver;
  /** Set by `checkUiLinks`: from then on a tool added with a UI must name a registered UI resource at once. */
  private uiLinksChecked = false;
  /** The call interceptors see, per request being processed, so a handler's error can be attached to it. */
  private readonly calls: CallGuard;
  private readonly identity: CallerIdentity;
  /** The 2025-era leg a transport hands requests without the 2026-07-28 claim to; undefined with `legacy: { mode: 'off' }`. */
  readonly legacy: LegacyLeg | undefined;
  /** Most URIs one listen may name; the most `resources/subscribe` one 2025-era session may hold too. */
  readonly maxResourceSubscriptions: number;
  /** Longest URI one listen may watch and one 2025-era `resources/subscribe` may name. */
  readonly maxUriLength: number;

  constructor(options: McpServerOptions) {
    if (!options || typeof options.name !== 'string' || typeof options.version !== 'string') {
      throw new McpConfigurationError(MISSING_IDENTITY);
    }
    rejectUnknownOptions(options, SERVER_OPTION_KEYS, 'MCP server options');
    const { limits = {}, listen = {}, requestState = {}, legacy = {}, observability = {} } = options;
    this.logger = options.logger ?? consoleLogger;
    const pageSize = limits.pageSize ?? 100;
    const schemas = new SchemaCompiler();
    this.tools = new ToolRegistry(schemas, pageSize, (requiredScopes) =>
      this.publish({ type: 'tools/list_changed', requiredScopes }),
    );
    this.resources = new ResourceRegistry(pageSize, (requiredScopes) =>
      this.publish({ type: 'resources/list_changed', requiredScopes }),
    );
    this.prompts = new PromptRegistry(pageSize, (requiredScopes) =>
      this.publish({ type: 'prompts/list_changed', requiredScopes }),
    );
    this.skills = new SkillCatalog(options.skills, this.resources, pageSize);
    this.states = new RequestStateCodec({ secret: requestState.secret, ttlMs: requestState.ttlMs });
    this.eventBus = listen.eventBus ?? new InProcessEventBus();
    this.identity = new CallerIdentity(options.auth?.identify);
    const maxConcurrentCalls = limits.maxConcurrentCalls ?? 256;
    this.calls = new CallGuard(
      limits.callTimeoutMs ?? 60_000,
      maxConcurrentCalls,
      limits.maxConcurrentCallsPerCaller ?? defaultShare(maxConcurrentCalls),
    );
    const redact = observability.redactErrors ?? process.env.NODE_ENV === 'production';
    const toLogger: HandlerErrorLogger = (error, report) => logHandlerError(this.logger, error, report);
    // Redacted details must still reach someone: without a log of its own, the kernel writes to its logger.
    const failure = new HandlerFailure(
      new HandlerErrorPolicy(redact, randomUUID, observability.onHandlerError ?? (redact ? toLogger : undefined)),
      randomUUID,
    );
    // `onHandlerError` was the kernel's only log before `logger` existed; it still gets these when it is the only one.
    this.interceptorLog = options.logger || !observability.onHandlerError ? toLogger : observability.onHandlerError;
    const serverInfo = serverInfoOf(options);
    this.era = new Era2026(serverInfo, options.lists?.cache);
    if (
      legacy.mode !== undefined &&
      legacy.mode !== 'stateless' &&
      legacy.mode !== 'stateful' &&
      legacy.mode !== 'off'
    ) {
      throw new McpConfigurationError(INVALID_LEGACY_MODE(legacy.mode));
    }
    this.maxResourceSubscriptions = listen.maxResourceSubscriptions ?? DEFAULT_LISTEN_LIMITS.maxResourceSubscriptions;
    this.maxUriLength = listen.maxUriLength ?? DEFAULT_LISTEN_LIMITS.maxUriLength;
    this.legacy = legacy.mode === 'off' ? undefined : new LegacyLeg(this, serverInfo, options.instructions, legacy);

    const audience = JSON.stringify([options.name, requestState.audience ?? '']);
    const round = new InputRound(
      this.states,
      requestState.store ?? new InMemoryRequestStateStore(),
      schemas,
      audience,
      requestState.bind,
    );
    const gate = new ScopeGate(options.hideForbidden ?? false);
    this.taskRunner = new TaskRunner(
      options.name,
      options.tasks,
      (owner, task) => this.publish({ type: 'tasks/status', owner, task }),
      this.logger,
    );
    const tasks = new TaskMethods(this.taskRunner, schemas);
    const tools = (this.toolCalls = new ToolMethods(
      this.tools,
      round,
      failure,
      gate,
      new ToolTasks(this.taskRunner, schemas),
    ));
    const resources = new ResourceMethods(this.resources, round, failure, gate);
    const prompts = new PromptMethods(this.prompts, round, failure, gate);
    const completion = new CompletionMethods(this.prompts, this.resources, gate);
    const skills = new SkillMethods(this.skills, gate, round);
    const server = (this.server = new ServerMethods(
      this.tools,
      this.prompts,
      this.resources,
      completion,
      this.skills,
      Era2026.supportedVersions,
      options.instructions,
    ));
    const listenLimits = {
      maxStreams: listen.maxStreams ?? DEFAULT_LISTEN_LIMITS.maxStreams,
      maxStreamsPerCaller: listen.maxStreamsPerCaller ?? DEFAULT_LISTEN_LIMITS.maxStreamsPerCaller,
      maxResourceSubscriptions: this.maxResourceSubscriptions,
      maxUriLength: this.maxUriLength,
    };
    this.listen = new ListenMethods(
      this.tools,
      this.prompts,
      this.resources,
      this.eventBus,
      listenLimits,
      gate,
      options.name,
    );
    this.methods = new Map<string, MethodHandler>([
      ['server/discover', () => server.discover()],
      ['tools/list', (req, ctx) => tools.list(req, ctx)],
      ['tools/call', (req, ctx, caller) => tools.call(req, ctx, caller)],
      ['resources/list', (req, ctx) => resources.list(req, ctx)],
      ['resources/templates/list', (req, ctx) => resources.listTemplates(req, ctx)],
      ['resources/read', (req, ctx, caller) => resources.read(req, ctx, caller)],
      ['prompts/list', (req, ctx) => prompts.list(req, ctx)],
      ['prompts/get', (req, ctx, caller) => prompts.get(req, ctx, caller)],
      ['completion/complete', (req, ctx) => completion.complete(req, ctx)],
      ['skills/list', (req, ctx) => skills.list(req, ctx)],
      ['skills/get', (req, ctx) => skills.get(req, ctx)],
      ['resources/directory/read', (req, ctx) => skills.readDirectory(req, ctx)],
      ['subscriptions/listen', (req, ctx, caller) => this.listen.listen(req, ctx, caller)],
      ['tasks/get', (req, _ctx, caller) => tasks.get(req, caller)],
      ['tasks/update', (req, _ctx, caller) => tasks.update(req, caller)],
      ['tasks/cancel', (req, _ctx, caller) => tasks.cancel(req, caller)],
    ]);
  }

  /**
   * Runs one round of a task queued by an instance with `tasks.queue` (a worker calls it for each job it takes;
   * `nestjs-mcp/bullmq` does). Resolves once the round has ended and its outcome is in the task store; a round
   * of a task that has ended, expired or moved on runs nothing. `restarts`: how often the queue gave this round
   * again after losing its worker (past the tool's `retry`, the task ends `failed` without running).
   */
  runQueuedTask(job: QueuedTask, restarts = 0): Promise<void> {
    return this.toolCalls.runQueued(job, restarts);
  }

  /** Calls running now and listen streams open now, for health checks and load tests. */
  get load(): { calls: number; subscriptions: number } {
    return { calls: this.calls.inFlight, subscriptions: this.listen.openStreams };
  }

  /** The server's events as listen streams get them: what a 2025-era session's GET stream carries. */
  subscribeEvents(listener: (event: McpEvent) => void): () => void {
    return this.eventBus.subscribe(listener);
  }

  /** Throws the 403 step-up error when the caller lacks the scopes of a resource it subscribes to (see listen). */
  checkSubscriptions(uris: readonly string[], scopes: readonly string[] | undefined): void {
    this.listen.audience(uris, scopes);
  }

  /** Whether a resource or template of this server serves `uri` (for the 2025-era `resources/subscribe`). */
  servesResource(uri: string): boolean {
    return this.resources.match(uri) !== undefined;
  }

  /** The capabilities of what is registered now, for an era's handshake (`server/discover`, `initialize`). */
  capabilities(): ServerCapabilities {
    return this.server.capabilities();
  }

  /** True when no `requestState.secret` was given and a per-process key signs request state. */
  get usesGeneratedStateSecret(): boolean {
    return this.states.generatedSecret;
  }

  // ----- registration -------------------------------------------------------------------------------------

  /**
   * Registers a tool from its name, description, input schema (JSON Schema, zod, Standard Schema or a DTO class)
   * and handler, whose arguments are typed from the schema, plus any other option (`taskSupport`, ...).
   */
  registerTool<S extends object>(
    name: string,
    description: string,
    schema: S,
    handler: ToolHandler<InferSchemaInput<S>>,
    options: ToolRegistrationOptions = {},
  ): RegistrationHandle<McpToolRegistration<S>> {
    return this.addTool({ ...options, name, description, inputSchema: schema, handler });
  }

  /** Registers a tool with every option the spec allows (title, outputSchema, annotations, icons, _meta). */
  addTool<S extends object = JsonSchema>(
    registration: McpToolRegistration<S>,
  ): RegistrationHandle<McpToolRegistration<S>> {
    return register(
      registration,
      (r) => {
        const { registration: tool, checks } = toToolRegistration(r as McpToolRegistration<object>);
        const problem = this.uiLinksChecked ? this.uiLinkProblem(tool.name, tool.ui?.resourceUri) : undefined;
        if (problem) throw new McpConfigurationError(REGISTRATION_FAILED(`Tool "${tool.name}"`, problem));
        this.tools.add(tool, checks);
      },
      (r) => this.tools.remove(r.name),
    );
  }

  removeTool(name: string): boolean {
    return this.tools.remove(name);
  }

  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  addResource(registration: ResourceRegistration): RegistrationHandle<ResourceRegistration> {
    return register(
      registration,
      (r) => this.resources.addResource(r),
      (r) => this.resources.removeResource(r.uri),
    );
  }

  addResourceTemplate(registration: ResourceTemplateRegistration): RegistrationHandle<ResourceTemplateRegistration> {
    return register(
      registration,
      (r) => this.resources.addTemplate(r),
      (r) => this.resources.removeTemplate(r.uriTemplate),
    );
  }

  removeResource(uri: string): boolean {
    return this.resources.removeResource(uri);
  }

  /**
   * Registers a UI resource (MCP Apps): a `ui://` URI serving one HTML document (inline, from a file read now, or
   * from a handler) with `text/html;profile=mcp-app` and its `_meta.ui` (csp, permissions, domain, prefersBorder).
   * Remove it with `removeResource`.
   */
  addUiResource(registration: UiResourceRegistration): RegistrationHandle<UiResourceRegistration> {
    return register(
      registration,
      (r) => this.resources.addResource(toUiResourceRegistration(r)),
      (r) => this.resources.removeResource(r.uri),
    );
  }

  /**
   * What keeps a tool's UI from rendering (it names no registered UI resource), one sentence per tool; empty when
   * every UI resolves. Called once everything is registered (the Nest module does, at start-up): from then on,
   * a tool added with a UI is refused at once unless its resource is there.
   */
  checkUiLinks(): string[] {
    this.uiLinksChecked = true;
    const problems: string[] = [];
    for (const entry of this.tools.withUi()) {
      const problem = this.uiLinkProblem(entry.definition.name, entry.ui.resourceUri);
      if (problem) problems.push(problem);
    }
    return problems;
  }

  private uiLinkProblem(tool: string, resourceUri: unknown): string | undefined {
    // A malformed uri is the tool registry's to report, with its own message.
    if (typeof resourceUri !== 'string') return undefined;
    return uiLinkProblem(tool, resourceUri, this.resources.definition(resourceUri));
  }

  removeResourceTemplate(uriTemplate: string): boolean {
    return this.resources.removeTemplate(uriTemplate);
  }

  addPrompt(registration: PromptRegistration): RegistrationHandle<PromptRegistration> {
    return register(
      registration,
      (r) => this.prompts.add(r),
      (r) => this.prompts.remove(r.name),
    );
  }

  removePrompt(name: string): boolean {
    return this.prompts.remove(name);
  }

  /**
   * Serves a skill built in code (SEP-2640): its `SKILL.md` is written from its fields, its files become
   * `skill://` resources. Returns the URI of its `SKILL.md`; throws `McpConfigurationError` when it is broken.
   */
  addSkill(skill: McpSkill): string {
    return this.skills.addSkill(skill);
  }

  /** Stops serving the skill whose `SKILL.md` is at `uri`, and its files; false when there is none. */
  removeSkill(uri: string): boolean {
    return this.skills.remove(uri);
  }

  /** Reads the folder of the `skills.directory` option; a transport host calls it once, before serving. */
  loadSkills(): Promise<void> {
    return this.skills.load();
  }

  /** Tells listen streams that subscribed to this resource that it changed. */
  notifyResourceUpdated(uri: string): void {
    this.publish({ type: 'resources/updated', uri });
  }

  /**
   * Ends every open listen stream with its closing result (later listens are refused), and every 2025-era call
   * waiting for a client's answer with a clean error.
   */
  close(): void {
    this.listen.close();
    this.taskRunner.close();
    void this.legacy?.close();
  }

  // ----- the dispatcher -----------------------------------------------------------------------------------

  /**
   * Processes one JSON-RPC message. Returns the response object, or undefined for a notification (which gets
   * no response). Never throws: every failure becomes a JSON-RPC error or an `isError` tool result.
   */
  async handleRequest(message: unknown, context: McpRequestContext = {}): Promise<JsonRpcResponse | undefined> {
    const verdict = classifyMessage(message);
    if (verdict.kind === 'invalid') return verdict.response;
    if (verdict.kind === 'notification') return undefined;
    return this.era.refuse(verdict.request) ?? this.dispatch(verdict.request, context);
  }

  /**
   * Who a request speaks for: what the kernel binds tasks, request state, 2025-era replies and per-caller shares
   * to. A context the kernel made (a handler's) already carries it, so it is computed once per request.
   */
  callerOf(context: McpRequestContext): Caller {
    return context instanceof CallContext ? context.caller : this.identity.of(context.principal);
  }

  /**
   * Dispatches a request that already passed the classifier's message and version rungs (as a transport that
   * runs `classifyMessage` and `classifyHttpRequest` itself has done), so they are not run twice per request.
   * `era` presents the answer: 2026-07-28 unless the transport serves an earlier revision.
   */
  dispatch(request: JsonRpcRequest, context: McpRequestContext = {}, era: McpEra = this.era): Promise<JsonRpcResponse> {
    const handler = era.removed(request.method) ? undefined : this.methods.get(request.method);
    if (!handler)
      return Promise.resolve(
        errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`),
      );
    // The one place a dispatched call is wrapped (logging, tracing, metrics); without interceptors, no cost.
    const call = (this.interceptor || this.observer) && describeCall(request, context.httpRequest);
    const caller = this.callerOf(context);
    const failed = (error: unknown): JsonRpcResponse => this.observed(call, this.failure(request, era, call, error));
    const answered = (result: MethodResult): JsonRpcResponse => {
      let response: JsonRpcResponse;
      try {
        response = successResponse(request.id, era.present(result));
      } catch (error) {
        response = this.failure(request, era, call, error);
      }
      return this.observed(call, response);
    };
    let answer: Promise<JsonRpcResponse> | undefined;
    // One promise per call, settled from the handler's own answer: no async wrapper adds microtasks to a sync call.
    const respond = (): Promise<JsonRpcResponse> => {
      let running: MethodResult | Promise<MethodResult>;
      try {
        // A listen stream is long-lived by design and has its own cap; every other call is bounded.
        running =
          request.method === 'subscriptions/listen'
            ? handler(request, context, caller)
            : this.calls.run(context, caller, (signal) =>
                handler(request, new CallContext(context, signal, call || undefined, caller), caller),
              );
      } catch (error) {
        return (answer = Promise.resolve(failed(error)));
      }
      // A synchronous answer is presented at once: one promise per call, already settled.
      return (answer = isThenable(running)
        ? Promise.resolve(running).then(answered, failed)
        : Promise.resolve(answered(running)));
    };
    if (!call || !this.interceptor) return respond();
    // Interceptors are application code (loggers, tracers, metrics): one that throws must not turn the answer
    // into a rejected promise, which a transport can only send as a bare 500. The log gets the exception.
    try {
      const intercepted = this.interceptor(call, respond);
      // Interceptors that passed the answer through (the tracing layer without an SDK) hand back `respond`'s own
      // promise, which never rejects: guarding it would cost every call a promise and a microtask.
      if (intercepted === answer) return intercepted;
      return Promise.resolve(intercepted).then(undefined, (error: unknown) =>
        this.interceptorFailedResponse(error, call, request),
      );
    } catch (error) {
      return Promise.resolve(this.interceptorFailedResponse(error, call, request));
    }
  }

  /** A failure of a dispatched call as its JSON-RPC answer; an unexpected one is kept on the call for the log. */
  private failure(request: JsonRpcRequest, era: McpEra, call: McpCall | undefined, error: unknown): JsonRpcResponse {
    if (error instanceof DeadlineExceeded && request.method === 'tools/call') {
      return successResponse(request.id, era.present(toolError(`Error: ${error.message}`)));
    }
    if (error instanceof McpError) return errorResponse(request.id, error.code, error.message, error.data);
    if (call) call.error = error;
    return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
  }

  /** The response after the observers; one that throws is application code failing: logged, and -32603. */
  private observed(call: McpCall | undefined, response: JsonRpcResponse): JsonRpcResponse {
    if (!call || !this.observer) return response;
    try {
      return this.observer(call, response);
    } catch (error) {
      this.interceptorFailed(error, call);
      return errorResponse(response.id, ErrorCode.InternalError, 'Internal error');
    }
  }

  private interceptorFailedResponse(error: unknown, call: McpCall, request: JsonRpcRequest): JsonRpcResponse {
    this.interceptorFailed(error, call);
    return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
  }

  /**
   * Shows the interceptors (logging, `onCall`, tracing) a request the transport refused before dispatch, such as
   * a 401 or a 503 from authentication, so refusals are counted like any other answer. Returns the response to
   * send (an interceptor may add to it). A message that is not a request has no call to report; a refusal made
   * before the body was read (`message` undefined) is described by the request's `headers`, when they name a method.
   */
  async observeRefusal(
    message: unknown,
    response: JsonRpcResponse,
    httpRequest?: unknown,
    headers?: HeaderBag,
  ): Promise<JsonRpcResponse> {
    if (!this.interceptor && !this.observer) return response;
    let call: McpCall | undefined;
    if (message === undefined && headers) call = describeByHeaders(headers, httpRequest);
    else {
      const verdict = classifyMessage(message);
      if (verdict.kind === 'request') call = describeCall(verdict.request, httpRequest);
    }
    if (!call) return response;
    const observed = this.observed(call, response);
    if (!this.interceptor) return observed;
    try {
      return await this.interceptor(call, async () => observed);
    } catch (error) {
      this.interceptorFailed(error, call);
      return observed;
    }
  }

  /** Adds an interceptor around every dispatched call; each one added wraps those added before it. */
  intercept(interceptor: McpCallInterceptor): void {
    this.interceptor = chainInterceptors(this.interceptor, interceptor);
  }

  /**
   * Adds an observer of every call's response (and of refusals, as interceptors see them), run inside all
   * interceptors; each one added gets what those added before it returned.
   */
  observe(observer: McpCallObserver): void {
    const inner = this.observer;
    this.observer = inner ? (call, response) => observer(call, inner(call, response)) : observer;
  }

  private interceptorFailed(error: unknown, call: McpCall): void {
    this.interceptorLog(error, {
      correlationId: randomUUID(),
      method: call.method,
      name: call.name ?? call.uri,
      requestId: call.requestId,
    });
  }

  private publish(event: McpEvent): void {
    // A remote bus that is down must neither fail the registration nor, as an unhandled rejection, end the
    // process: listen streams miss this change, and the log says so.
    Promise.resolve(this.eventBus.publish(event)).catch((error: unknown) =>
      this.logger.error(`MCP event bus: publish of ${event.type} failed`, error),
    );
  }
}
