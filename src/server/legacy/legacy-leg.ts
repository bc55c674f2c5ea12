import type { ReplyOutcome } from '../../protocol/client-reply.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import {
  errorResponse,
  isPlainObject,
  successResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../protocol/jsonrpc.js';
import { LOG_LEVELS, type Implementation, type ServerCapabilities } from '../../protocol/mcp-types.js';
import { TASKS_EXTENSION } from '../../protocol/extensions/tasks.js';
import {
  LEGACY_PROTOCOL_VERSIONS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
} from '../../protocol/versions.js';
import type { Caller } from '../access/caller-identity.js';
import { defaultShare } from '../access/fair-share.js';
import type { McpEra } from '../eras/era.js';
import type { McpBusEvent } from '../events/event-bus.js';
import { checkUriLength } from '../methods/listen-access.js';
import { LegacySessions, UNKNOWN_SESSION, type LegacySessionOptions } from '../sessions/legacy-sessions.js';
import type { SessionRecord } from '../sessions/session-store.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { InterimResult } from '../method-result.js';
import { toolError } from '../methods/tools.js';
import { isThenable } from '../util/when-ready.js';
import { InProcessReplyRouter, type ReplyRouter } from './reply-router.js';
import { ClientRequests } from './client-requests.js';
import { Era2025 } from '../eras/era-2025.js';
import { checkedExtensions, type DeclaredExtensions } from '../discovery/declared-extensions.js';

/** The `legacy` option group: how 2025-era clients (those that open with `initialize`) are served. */
export interface LegacyOptions {
  /**
   * `'stateless'` (the default) on the same endpoint, with no session; `'stateful'` gives each `initialize` an
   * `Mcp-Session-Id`, a GET stream and resumable streams (`sessions`); `'off'` refuses them with 400 -32022
   * naming the supported revision.
   */
  mode?: 'stateless' | 'stateful' | 'off';
  /** Sessions of the `'stateful'` mode: their store, idle timeout and bounds. */
  sessions?: LegacySessionOptions;
  /** Routes replies to server→client requests back to the waiting call. In process by default. */
  replyRouter?: ReplyRouter;
  /** How long one round of server→client requests waits for the client's answers. Default 5 minutes. */
  replyTimeoutMs?: number;
  /** Most calls waiting for client input at once on this instance. Default 100. */
  maxWaitingCalls?: number;
  /** Largest reply to a server→client request, in bytes of JSON. Default 1 MiB. */
  maxReplyBytes?: number;
  /** Most of those one identified caller may hold. Default: a quarter of `maxWaitingCalls` (at least 1). */
  maxWaitingCallsPerCaller?: number;
  /**
   * Extensions named only in the 2025-era `initialize` result, with settings of any JSON (null too), beside the
   * top-level `extensions`, which keep theirs on the same identifier, as do the module's own.
   */
  extensions?: Record<string, Record<string, unknown>>;
}

/** What the leg needs of the kernel: its dispatcher, in any era, what it has registered, and its scope rules. */
export interface LegacyDispatcher {
  /** The kernel's dispatch, answered at once when the call is. */
  dispatchNow(request: JsonRpcRequest, context: McpRequestContext, era: McpEra): LegacyAnswer;
  capabilities(): ServerCapabilities;
  /** Who a request speaks for (the kernel's one caller identity). */
  callerOf(context: McpRequestContext): Caller;
  /** Throws the InsufficientScope error a 2026-07-28 listen gets for a resource the caller may not watch. */
  checkSubscriptions(uris: readonly string[], scopes: readonly string[] | undefined): void;
  /** The server's events (list changes, resource updates), for the GET streams of sessions. */
  subscribeEvents(listener: (event: McpBusEvent) => void): () => void;
  /** Most URIs one listen may watch: also the most subscriptions one session may hold. */
  readonly maxResourceSubscriptions: number;
  /** Longest URI one listen may watch: also the longest one `resources/subscribe` may name. */
  readonly maxUriLength: number;
  /** Whether a resource or template of the server serves `uri` to the request's caller. */
  servesResource(uri: string, request: JsonRpcRequest, context: McpRequestContext): Promise<boolean>;
}

/** A request's answer: at once when the call was answered synchronously, else a promise of it. */
export type LegacyAnswer = JsonRpcResponse | Promise<JsonRpcResponse>;

// A handler that keeps asking (say, for an answer the client can never give) is stopped after this many rounds.
const MAX_ROUNDS = 8;
const ERA = new Era2025();

/**
 * The 2025-era leg, stateless: what a transport calls for a request without the 2026-07-28 claim. `initialize`
 * is answered from what the server has and remembers nothing; the methods 2026-07-28 removed are answered as 2025
 * did; every other request is dispatched to the same method families in the 2025 presentation (`Era2025`). A
 * handler that asks for input has its requests sent to the client as real JSON-RPC requests on the call's own
 * stream (`context.notify`); the answers come back as new messages through `acceptReply`, and the handler runs
 * again with them under the keys it asked under, as a 2026-07-28 client's retry would.
 */
export class LegacyLeg {
  readonly requests: ClientRequests;
  /** The sessions of `mode: 'stateful'`; undefined when stateless. */
  readonly sessions: LegacySessions | undefined;
  private readonly router: ReplyRouter;
  private readonly extensions: DeclaredExtensions | undefined;

  constructor(
    private readonly kernel: LegacyDispatcher,
    private readonly serverInfo: Implementation,
    private readonly instructions: string | undefined,
    options: LegacyOptions,
  ) {
    this.router = options.replyRouter ?? new InProcessReplyRouter();
    this.extensions =
      options.extensions === undefined ? undefined : checkedExtensions('legacy.extensions', options.extensions, true);
    const maxWaiting = options.maxWaitingCalls ?? 100;
    this.requests = new ClientRequests({
      router: this.router,
      timeoutMs: options.replyTimeoutMs ?? 300_000,
      server: serverInfo.name,
      maxWaiting,
      maxWaitingPerCaller: options.maxWaitingCallsPerCaller ?? defaultShare(maxWaiting),
      maxReplyBytes: options.maxReplyBytes ?? 1024 * 1024,
    });
    if (options.mode === 'stateful')
      this.sessions = new LegacySessions(serverInfo.name, options.sessions ?? {}, (listener) =>
        kernel.subscribeEvents(listener),
      );
  }

  /** Server→client requests waiting for a reply on this instance. */
  get waiting(): number {
    return this.router.size;
  }

  /**
   * Serves one 2025-era request; `version` is what its transport speaks (the header, or 2025-03-26), `session`
   * the session it belongs to in stateful mode (its transport resolved it). Answered at once when the call is (as
   * the kernel's `dispatchNow`), so a transport writes a synchronous answer with no promise in between; a failure
   * is a rejected promise, never a throw.
   */
  handle(request: JsonRpcRequest, context: McpRequestContext, version: string, session?: SessionRecord): LegacyAnswer {
    switch (request.method) {
      case 'initialize':
        // The 2025 schema requires params with a protocolVersion: without one there is nothing to negotiate.
        if (typeof request.params?.protocolVersion !== 'string')
          return errorResponse(
            request.id,
            ErrorCode.InvalidParams,
            'Invalid params: initialize needs params with a "protocolVersion" string',
          );
        try {
          return successResponse(request.id, this.initialize(request));
        } catch (error) {
          return Promise.reject(error);
        }
      case 'ping':
        return successResponse(request.id, {});
      case 'logging/setLevel':
        // There is nowhere to keep a level: this leg sends every log, and a client filters what it shows.
        if (!(LOG_LEVELS as readonly unknown[]).includes(request.params?.level))
          return errorResponse(request.id, ErrorCode.InvalidParams, 'Invalid params: "level" must be a logging level');
        return successResponse(request.id, {});
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.subscription(request, context, session);
      default:
        return this.serve(request, context, session?.protocolVersion ?? version, session);
    }
  }

  /**
   * `resources/subscribe` and `resources/unsubscribe`. Stateless, accepted and never delivered: there is no stream
   * to send resources/updated on. A subscription is refused (-32602) for a URI longer than `listen.maxUriLength`
   * or one no resource or template of the server serves, and like a 2026-07-28 listen that names the resource
   * when the caller lacks its scopes: it is a promise of updates a caller without them may not be made.
   */
  private async subscription(
    request: JsonRpcRequest,
    context: McpRequestContext,
    session: SessionRecord | undefined,
  ): Promise<JsonRpcResponse> {
    if (!this.capabilities().resources)
      return errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const uri = request.params?.uri;
    if (typeof uri !== 'string')
      return errorResponse(request.id, ErrorCode.InvalidParams, 'Invalid params: "uri" must be a string');
    const subscribing = request.method === 'resources/subscribe';
    if (subscribing) {
      try {
        checkUriLength(uri, this.kernel.maxUriLength);
        if (!(await this.kernel.servesResource(uri, request, context)))
          throw McpError.invalidParams(`Invalid params: no resource or template of this server serves ${uri}`);
        this.kernel.checkSubscriptions([uri], context.scopes);
      } catch (error) {
        if (!(error instanceof McpError)) throw error;
        return errorResponse(request.id, error.code, error.message, error.data);
      }
    }
    if (session && this.sessions) {
      const max = this.kernel.maxResourceSubscriptions;
      const outcome = subscribing
        ? await this.sessions.subscribe(session, uri, max)
        : (await this.sessions.unsubscribe(session, uri)) || 'gone';
      if (outcome === 'full')
        return errorResponse(
          request.id,
          ErrorCode.InvalidParams,
          `Invalid params: a session may hold at most ${max} subscriptions, of ${this.sessions.maxSubscriptionBytes} bytes of URIs in all`,
        );
      // Ended (DELETE, idle timeout) between the request's arrival and now: as for any request of an ended one.
      if (outcome === 'gone') return errorResponse(request.id, ErrorCode.SessionNotFound, UNKNOWN_SESSION.message);
    }
    return successResponse(request.id, {});
  }

  /** Who a transport's principal speaks for (the kernel's one caller identity). */
  callerOf(principal: unknown): Caller {
    return this.kernel.callerOf({ principal });
  }

  /** Routes a client's posted response to the call that waits for it; a refused one changes nothing. */
  acceptReply(message: Record<string, unknown>, principal: unknown): Promise<ReplyOutcome> {
    return this.requests.acceptReply(message, this.kernel.callerOf({ principal }));
  }

  /** Withdraws every request still waiting for a reply (shutdown): their calls end with a clean error. */
  async close(): Promise<void> {
    await Promise.all([this.router.close(), this.sessions?.close()]);
  }

  /**
   * What is registered now, in the 2025 shape. Stateless, no stream outlives a request, so no list_changed or
   * updates; a session's GET stream carries both.
   */
  private capabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = { ...this.kernel.capabilities() };
    if (this.extensions) capabilities.extensions = { ...this.extensions, ...capabilities.extensions };
    const changes = this.sessions ? { listChanged: true } : {};
    if (capabilities.tools) capabilities.tools = { ...changes };
    if (capabilities.prompts) capabilities.prompts = { ...changes };
    if (capabilities.resources) capabilities.resources = { subscribe: true, ...changes };
    return capabilities;
  }

  private initialize(request: JsonRpcRequest): Record<string, unknown> {
    const requested = request.params?.protocolVersion;
    // Version negotiation (2025-11-25 lifecycle): the same version when supported, else the latest this leg has.
    const protocolVersion =
      typeof requested === 'string' && LEGACY_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LEGACY_PROTOCOL_VERSIONS[0];
    const result: Record<string, unknown> = {
      protocolVersion,
      capabilities: this.capabilities(),
      serverInfo: this.serverInfo,
    };
    if (this.instructions !== undefined) result.instructions = this.instructions;
    return result;
  }

  /**
   * Dispatches a method to the families, in rounds while its handler asks for input. The request is the
   * client's own, with the leg's defaults in `_meta` where the client set none: its transport version, since
   * no level is stored, every log, and in a session what its `initialize` declared. A tasks extension it declares
   * is taken out: that extension's `tasks/get` is a 2026-07-28 method this leg does not serve, so a task made
   * here could never be polled; the call runs as a plain request (and a tool that requires a task answers
   * -32021, as to any client without it).
   */
  private serve(
    request: JsonRpcRequest,
    context: McpRequestContext,
    version: string,
    session: SessionRecord | undefined,
  ): LegacyAnswer {
    // The request is the transport's own parse of this one message, so the leg's defaults are written into it
    // rather than into copies: copies of the request, its params and its `_meta` cost every call allocations that,
    // under load, were promoted out of the young generation.
    const params = request.params ?? {};
    const meta: Record<string, unknown> = isPlainObject(params._meta) ? params._meta : {};
    meta[META_PROTOCOL_VERSION] = version;
    meta[META_LOG_LEVEL] ??= 'debug';
    if (session) {
      meta[META_CLIENT_CAPABILITIES] = session.clientCapabilities;
      if (session.clientInfo) meta[META_CLIENT_INFO] = session.clientInfo;
    }
    withoutTasksExtension(meta);
    params._meta = meta;
    request.params = params;
    let first: LegacyAnswer;
    try {
      first = this.kernel.dispatchNow(request, context, ERA);
    } catch (error) {
      return Promise.reject(error);
    }
    // Only a call that asked for input (or is still running) needs the rounds and their promises.
    if (!isThenable(first) && !('result' in first && first.result instanceof InterimResult)) return first;
    return this.rounds(request, context, first);
  }

  /** The rounds of a call whose handler asks for input: each one's requests sent to the client, its answers fed back. */
  private async rounds(
    request: JsonRpcRequest,
    context: McpRequestContext,
    first: LegacyAnswer,
  ): Promise<JsonRpcResponse> {
    let current = request;
    let answer = first;
    const caller = this.kernel.callerOf(context);
    for (let round = 0; ; round++) {
      const response = await answer;
      if (!('result' in response) || !(response.result instanceof InterimResult)) return response;
      if (round >= MAX_ROUNDS)
        return inputFailed(request, `Error: the handler asked for input more than ${MAX_ROUNDS} times`);
      const interim = response.result;
      let answers;
      try {
        answers = await this.requests.ask(interim.inputRequests, caller, context.notify, context.signal ?? NEVER);
      } catch (error) {
        // Too many calls waiting: come back later, as the error says. ClientInputError, or a shared reply router
        // that cannot register the request (Redis down): the input cannot be had, and the call ends saying why
        // rather than as a rejected promise.
        if (error instanceof McpError && error.code === ErrorCode.RateLimited)
          return errorResponse(request.id, error.code, error.message, error.data);
        if (error instanceof McpError) return inputFailed(request, error.message);
        throw error;
      }
      current = {
        ...current,
        params: { ...current.params, inputResponses: answers, requestState: interim.requestState },
      };
      answer = this.kernel.dispatchNow(current, context, ERA);
    }
  }
}

const NEVER = new AbortController().signal;

function withoutTasksExtension(meta: Record<string, unknown>): void {
  const declared = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(declared) || !isPlainObject(declared.extensions) || !(TASKS_EXTENSION in declared.extensions))
    return;
  const extensions = { ...declared.extensions };
  delete extensions[TASKS_EXTENSION];
  meta[META_CLIENT_CAPABILITIES] = { ...declared, extensions };
}

/** A tool call that could not get its input ends as a tool error the model can read; other methods as -32603. */
function inputFailed(request: JsonRpcRequest, message: string): JsonRpcResponse {
  if (request.method === 'tools/call') return successResponse(request.id, toolError(message));
  return errorResponse(request.id, ErrorCode.InternalError, message);
}
