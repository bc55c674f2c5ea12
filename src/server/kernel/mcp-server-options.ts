import type { Implementation } from '../../protocol/mcp-types.js';
import type { McpCallerOptions } from '../access/caller-identity.js';
import type { CacheOptions } from '../eras/era-2026.js';
import type { McpEventBus } from '../events/event-bus.js';
import type { McpEventStore } from '../domain-events/event-store.js';
import type { McpEventsOptions } from '../domain-events/webhooks/webhook-options.js';
import type { HandlerErrorLogger } from '../failures/handler-error-policy.js';
import type { LegacyOptions } from '../legacy/legacy-leg.js';
import type { McpLogger } from '../mcp-logger.js';
import type { RequestStateBind } from '../input/input-round.js';
import type { RequestStateStore } from '../input/request-state-store.js';
import type { TaskOptions } from '../tasks/task-options.js';
import type { McpSkillsOptions } from '../skills/skill-options.js';
import type { OptionKeys } from '../errors/unknown-options.js';

/** What `serverInfo` says of the server besides its `name` and `version`. */
export type McpServerInfo = Omit<Implementation, 'name' | 'version'>;

/** The `limits` option group: what one request may take. */
export interface McpLimitsOptions {
  /** Wall-clock deadline of one request (any method but `subscriptions/listen`); its handler's signal fires. Default 60 s; 0 disables. */
  callTimeoutMs?: number;
  /** Most requests running at once (any method but `subscriptions/listen`); the excess is refused with -32023 "Server busy" (HTTP 429), never queued. Default 256. */
  maxConcurrentCalls?: number;
  /** Most requests one identified caller may have running at once. Default: a quarter of `maxConcurrentCalls` (at least 1). */
  maxConcurrentCallsPerCaller?: number;
  /** Items per page of every list method. Default 100. */
  pageSize?: number;
}

/** The `lists` option group: what discover, list pages and resource reads tell caches. */
export interface McpListsOptions {
  /** Caching hints (SEP-2549) for discover, list pages and resource reads. */
  cache?: CacheOptions;
}

/** The `listen` option group: `subscriptions/listen` streams and the events they carry. */
export interface McpListenOptions {
  /** Carries list-changed and resource-updated events to listen streams; in-process by default. */
  eventBus?: McpEventBus;
  /**
   * Where event types (SEP-3415) keep their occurrences for `events/poll` and `events/stream` cursors. Default: in
   * this process (`InMemoryEventStore`); `nestjs-mcp/redis` gives one every instance reads.
   */
  eventStore?: McpEventStore;
  /** Most listen streams open at once. Default 1000. */
  maxStreams?: number;
  /** Most listen streams one authenticated caller (principal identity) may hold open. Default 10. */
  maxStreamsPerCaller?: number;
  /** Most URIs one listen request may name in `resourceSubscriptions`; more is -32602. Default 1000. */
  maxResourceSubscriptions?: number;
  /**
   * Longest URI (in characters) one listen may watch, and one 2025-era `resources/subscribe` may name; longer is
   * -32602. Default 4096.
   */
  maxUriLength?: number;
}

/** The `requestState` option group: the signed state of multi-round (`input_required`) requests. */
export interface McpRequestStateOptions {
  /** Secret(s) that sign `requestState`; an array rotates keys (sign with the first, accept any). */
  secret?: string | string[];
  /** How long a multi-round request state stays valid. Default 10 minutes. */
  ttlMs?: number;
  /** Remembers consumed states for tools registered with `singleUseState`; in-memory (one instance) by default. */
  store?: RequestStateStore;
  /**
   * What request state is bound to besides the call, so a state sealed by another server that shares the
   * secret is refused. Always the server `name`, plus this (McpModule sets the canonical `auth.resource`).
   */
  audience?: string;
  /** More of the request to bind request state to (a tenant): see `RequestStateBind`. */
  bind?: RequestStateBind;
}

/** How the kernel reports what goes wrong in handlers. */
export interface McpErrorReportingOptions {
  /**
   * Replace the message of an unexpected handler error (anything but `ToolError` and `McpError`) with a generic
   * text and a correlation id. Default: on when `NODE_ENV` is `production`.
   */
  redactErrors?: boolean;
  /** Receives every unexpected handler error with its correlation id (the server-side log). */
  onHandlerError?: HandlerErrorLogger;
}

/** The kernel's options: the server's identity (sent as `serverInfo`), then one group per concern. */
export interface McpServerOptions {
  name: string;
  version: string;
  /** The rest of `serverInfo`: title, description, website, icons. */
  info?: McpServerInfo;
  /** Returned by `server/discover` to tell the model how to use this server. */
  instructions?: string;
  limits?: McpLimitsOptions;
  lists?: McpListsOptions;
  /**
   * Hide what a caller may not use: a guarded tool, prompt, resource or template its guards deny is left out of
   * every list (per primitive: `hideWhenDenied`), and a request naming a primitive it lacks scopes for is
   * answered as if the primitive did not exist (its subscribers are never told of it), instead of the 403
   * step-up challenge that names the scopes. Default false.
   */
  hideForbidden?: boolean;
  listen?: McpListenOptions;
  requestState?: McpRequestStateOptions;
  legacy?: LegacyOptions;
  /** Tool calls as tasks (tools registered with `taskSupport`): where they are kept, for how long, how many. */
  tasks?: TaskOptions;
  observability?: McpErrorReportingOptions;
  /** Events (SEP-3415): how webhook callbacks are checked and delivered to (`events.webhooks`). */
  events?: McpEventsOptions;
  /** Skills (SEP-2640): a folder of skills served as `skill://` resources, and the extension declared. */
  skills?: McpSkillsOptions;
  /**
   * More extensions (SEP-2133) the server supports, each under its identifier (`vendor/name`) with its settings,
   * named in both eras' handshakes (`server/discover` and the 2025-era `initialize` result) beside those the
   * module declares itself (Apps, Skills, Tasks), which win on the same identifier. Settings hold objects, arrays,
   * strings, integers and booleans (2026-07-28's JSON values). What a client declared is
   * `ctx.clientCapabilities.extensions`.
   */
  extensions?: Record<string, Record<string, unknown>>;
  /**
   * Where the kernel writes what only the operator should read: redacted handler errors (without
   * `onHandlerError`), interceptors that throw, an event bus or task store that fails. Default: stderr.
   */
  logger?: McpLogger;
  /** Who a caller is: what tasks, request state, 2025-era replies and per-caller shares are bound to. */
  auth?: McpCallerOptions;
}

/** Every key of `McpServerOptions`, for the start-up check that refuses any other (held to the type by the compiler). */
export const SERVER_OPTION_KEYS = {
  name: true,
  version: true,
  info: { title: true, description: true, websiteUrl: true, icons: true },
  instructions: true,
  extensions: true,
  limits: { callTimeoutMs: true, maxConcurrentCalls: true, maxConcurrentCallsPerCaller: true, pageSize: true },
  lists: { cache: true },
  hideForbidden: true,
  listen: {
    eventBus: true,
    eventStore: true,
    maxStreams: true,
    maxStreamsPerCaller: true,
    maxResourceSubscriptions: true,
    maxUriLength: true,
  },
  requestState: { secret: true, ttlMs: true, store: true, audience: true, bind: true },
  legacy: {
    mode: true,
    sessions: true,
    replyRouter: true,
    replyTimeoutMs: true,
    maxWaitingCalls: true,
    maxReplyBytes: true,
    maxWaitingCallsPerCaller: true,
    extensions: true,
  },
  tasks: {
    store: true,
    ttlMs: true,
    pollIntervalMs: true,
    maxTasksPerCaller: true,
    maxTasks: true,
    maxResultBytes: true,
    maxResultBytesPerCaller: true,
    leaseMs: true,
    queue: true,
    immediateResultMs: true,
  },
  observability: { redactErrors: true, onHandlerError: true },
  // `events.webhooks` is checked with its own keys (WEBHOOK_OPTION_KEYS) where its values are.
  events: { webhooks: true },
  skills: { directory: true, prefix: true, directoryRead: true, requiredScopes: true, limits: true },
  logger: true,
  auth: { identify: true },
} as const satisfies OptionKeys<McpServerOptions>;
