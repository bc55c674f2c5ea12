import { randomUUID } from 'node:crypto';
import { classifyMessage } from '../../protocol/classifier.js';
import type { HeaderBag } from '../../protocol/header-codec.js';
import type { JsonRpcRequest, JsonRpcResponse } from '../../protocol/jsonrpc.js';
import type { ServerCapabilities } from '../../protocol/mcp-types.js';
import { CallContext } from '../call-context.js';
import { CallGuard } from '../access/call-guard.js';
import { CallerIdentity, type Caller } from '../access/caller-identity.js';
import { defaultShare } from '../access/fair-share.js';
import { Era2026 } from '../eras/era-2026.js';
import type { McpEra } from '../eras/era.js';
import { InProcessEventBus, type McpBusEvent } from '../events/event-bus.js';
import { HandlerErrorPolicy, type HandlerErrorLogger } from '../failures/handler-error-policy.js';
import { HandlerFailure } from '../failures/handler-failure.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import {
  INVALID_LEGACY_MODE,
  MISSING_IDENTITY,
  TASK_IMMEDIATE_RESULT_PAST_DEADLINE,
} from '../errors/configuration-messages.js';
import { rejectUnknownOptions } from '../errors/unknown-options.js';
import { InputRound } from '../input/input-round.js';
import { LegacyLeg } from '../legacy/legacy-leg.js';
import { DEFAULT_LISTEN_LIMITS, type ListenLimits } from '../methods/listen-access.js';
import type { McpCallInterceptor, McpCallObserver } from '../mcp-call.js';
import { consoleLogger, logHandlerError } from '../mcp-logger.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { SERVER_OPTION_KEYS, type McpServerOptions } from './mcp-server-options.js';
import { CallDispatcher } from './call-dispatcher.js';
import { KernelRegistrations } from './kernel-registrations.js';
import { createMethodFamilies, methodTable } from './method-table.js';
import type { ListenMethods } from '../methods/listen.js';
import type { EventStreams } from '../domain-events/event-streams.js';
import { InMemoryEventStore, type McpEventStore } from '../domain-events/event-store.js';
import { InMemoryWebhookStore } from '../domain-events/webhook-store.js';
import { webhookSettings } from '../domain-events/webhooks/webhook-options.js';
import type { WebhookMethods } from '../domain-events/webhooks/webhook-methods.js';
import type { ResourceMethods } from '../methods/resources.js';
import type { ServerMethods } from '../methods/server.js';
import type { ToolMethods } from '../methods/tools.js';
import { RequestStateCodec } from '../input/request-state-codec.js';
import { InMemoryRequestStateStore } from '../input/request-state-store.js';
import { ScopeGate } from '../access/scope-gate.js';
import { SchemaCompiler } from '../schema/schema-compiler.js';
import { serverInfoOf } from '../server-info.js';
import { TaskRunner } from '../tasks/task-runner.js';
import type { QueuedTask } from '../tasks/task-queue.js';

/**
 * The transport-free MCP server: one JSON-RPC message in, one response out. Everything a request needs is
 * compiled when things are registered (validators, header rules, list pages), so a request does a map lookup,
 * a validation and a call. Nothing about a request is kept once it is answered.
 *
 * This class is the roof over the registration API (`kernel-registrations.ts`) and the dispatcher
 * (`call-dispatcher.ts`: the method table built once in `method-table.ts`, interceptors, the call guard and
 * deadline, and the mapping of failures to JSON-RPC errors). The methods themselves live in one class per
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
export class McpKernel extends KernelRegistrations {
  private readonly states: RequestStateCodec;
  private readonly listen: ListenMethods;
  private readonly eventStreams: EventStreams;
  private readonly webhooks: WebhookMethods;
  private readonly taskRunner: TaskRunner;
  private readonly toolCalls: ToolMethods;
  private readonly resourceReads: ResourceMethods;
  private readonly server: ServerMethods;
  private readonly dispatcher: CallDispatcher;
  private readonly era: Era2026;
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
    const schemas = new SchemaCompiler();
    const webhooks = webhookSettings(options.events?.webhooks);
    const eventStore: McpEventStore = listen.eventStore ?? new InMemoryEventStore();
    const eventBus = listen.eventBus ?? new InProcessEventBus();
    super(schemas, limits.pageSize ?? 100, options.skills, eventBus, options.logger ?? consoleLogger, eventStore);
    this.states = new RequestStateCodec({ secret: requestState.secret, ttlMs: requestState.ttlMs });
    this.identity = new CallerIdentity(options.auth?.identify);
    const maxConcurrentCalls = limits.maxConcurrentCalls ?? 256;
    const callTimeoutMs = limits.callTimeoutMs ?? 60_000;
    this.calls = new CallGuard(
      callTimeoutMs,
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
    const log = options.logger || !observability.onHandlerError ? toLogger : observability.onHandlerError;
    const serverInfo = serverInfoOf(options);
    this.era = new Era2026(serverInfo, options.lists?.cache);
    checkLegacyMode(legacy.mode);
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
    this.taskRunner = new TaskRunner(
      options.name,
      options.tasks,
      (owner, task) => this.publish({ type: 'tasks/status', owner, task }),
      this.logger,
      Date.now,
      this.states,
      this.eventBus,
    );
    const window = this.taskRunner.immediateResultMs;
    if (window !== undefined && callTimeoutMs > 0 && window >= callTimeoutMs)
      throw new McpConfigurationError(TASK_IMMEDIATE_RESULT_PAST_DEADLINE(window, callTimeoutMs));
    const families = createMethodFamilies(
      { tools: this.tools, resources: this.resources, prompts: this.prompts, skills: this.skills, events: this.events },
      {
        round,
        failure,
        gate: new ScopeGate(options.hideForbidden ?? false),
        taskRunner: this.taskRunner,
        schemas,
        webhooks: { store: eventStore.webhooks ?? new InMemoryWebhookStore(), settings: webhooks, logger: this.logger },
      },
      { eventBus: this.eventBus, limits: this.listenLimits(listen), serverName: options.name },
      options,
    );
    ({ listen: this.listen, tools: this.toolCalls, resources: this.resourceReads, server: this.server } = families);
    this.eventStreams = families.eventStreams;
    this.webhooks = families.webhooks;
    this.dispatcher = new CallDispatcher(methodTable(families), this.calls, (context) => this.callerOf(context), log);
  }

  private listenLimits(listen: NonNullable<McpServerOptions['listen']>): ListenLimits {
    return {
      maxStreams: listen.maxStreams ?? DEFAULT_LISTEN_LIMITS.maxStreams,
      maxStreamsPerCaller: listen.maxStreamsPerCaller ?? DEFAULT_LISTEN_LIMITS.maxStreamsPerCaller,
      maxResourceSubscriptions: this.maxResourceSubscriptions,
      maxUriLength: this.maxUriLength,
    };
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
  subscribeEvents(listener: (event: McpBusEvent) => void): () => void {
    return this.eventBus.subscribe(listener);
  }

  /** Throws the 403 step-up error when the caller lacks the scopes of a resource it subscribes to (see listen). */
  checkSubscriptions(uris: readonly string[], scopes: readonly string[] | undefined): void {
    this.listen.audience(uris, scopes);
  }

  /**
   * Whether a resource or template of this server serves `uri` to this request's caller (for the 2025-era
   * `resources/subscribe`): one hidden from the caller is not served; scopes are `checkSubscriptions`' part.
   */
  servesResource(uri: string, request: JsonRpcRequest, context: McpRequestContext): Promise<boolean> {
    return this.resourceReads.serves(uri, request, context);
  }

  /** The capabilities of what is registered now, for an era's handshake (`server/discover`, `initialize`). */
  capabilities(): ServerCapabilities {
    return this.server.capabilities();
  }

  /** True when no `requestState.secret` was given and a per-process key signs request state. */
  get usesGeneratedStateSecret(): boolean {
    return this.states.generatedSecret;
  }

  /**
   * Ends every open listen stream with its closing result (later listens are refused), and every 2025-era call
   * waiting for a client's answer with a clean error.
   */
  close(): void {
    this.listen.close();
    this.eventStreams.close();
    this.webhooks.close();
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
    return this.dispatcher.dispatch(request, context, era);
  }

  /**
   * `dispatch`, answered synchronously when the call is (its handler, guard and interceptors waited on nothing):
   * a transport can then write the answer with no promise or microtask in between.
   */
  dispatchNow(
    request: JsonRpcRequest,
    context: McpRequestContext = {},
    era: McpEra = this.era,
  ): JsonRpcResponse | Promise<JsonRpcResponse> {
    return this.dispatcher.dispatchNow(request, context, era);
  }

  /**
   * Shows the interceptors (logging, `onCall`, tracing) a request the transport refused before dispatch, such as
   * a 401 or a 503 from authentication, so refusals are counted like any other answer. Returns the response to
   * send (an interceptor may add to it). A message that is not a request has no call to report; a refusal made
   * before the body was read (`message` undefined) is described by the request's `headers`, when they name a method.
   */
  observeRefusal(
    message: unknown,
    response: JsonRpcResponse,
    httpRequest?: unknown,
    headers?: HeaderBag,
  ): Promise<JsonRpcResponse> {
    return this.dispatcher.observeRefusal(message, response, httpRequest, headers);
  }

  /** Adds an interceptor around every dispatched call; each one added wraps those added before it. */
  intercept(interceptor: McpCallInterceptor): void {
    this.dispatcher.intercept(interceptor);
  }

  /**
   * Adds an observer of every call's response (and of refusals, as interceptors see them), run inside all
   * interceptors; each one added gets what those added before it returned.
   */
  observe(observer: McpCallObserver): void {
    this.dispatcher.observe(observer);
  }
}

function checkLegacyMode(mode: unknown): void {
  if (mode !== undefined && mode !== 'stateless' && mode !== 'stateful' && mode !== 'off')
    throw new McpConfigurationError(INVALID_LEGACY_MODE(mode));
}
