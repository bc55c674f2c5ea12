import type { Implementation } from '../protocol/mcp-types.js';
import type { McpCallerOptions } from './access/caller-identity.js';
import type { McpLimitsOptions } from './access/fair-share.js';
import type { CacheOptions } from './eras/era-2026.js';
import type { McpEventBus } from './events/event-bus.js';
import type { HandlerErrorLogger } from './errors/handler-error-policy.js';
import type { LegacyOptions } from './legacy/legacy-leg.js';
import type { McpLogger } from './mcp-logger.js';
import type { RequestStateBind } from './input/input-round.js';
import type { RequestStateStore } from './input/request-state-store.js';
import type { TaskOptions } from './tasks/task-runner.js';

/** The server's identity (`name`, `version`, optional title, description, website, icons) is sent as `serverInfo`. */
export interface McpServerOptions extends Implementation, LegacyOptions {
  /** Returned by `server/discover` to tell the model how to use this server. */
  instructions?: string;
  /** Items per page of every list method. Default 100. */
  pageSize?: number;
  /** Caching hints (SEP-2549) for discover, list pages and resource reads. */
  cache?: CacheOptions;
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
  /** Most listen streams one authenticated caller (principal identity) may hold open. Default 10. */
  maxSubscriptionsPerCaller?: number;
  /** Most URIs one listen request may name in `resourceSubscriptions`; more is -32602. Default 1000. */
  maxResourceSubscriptions?: number;
  /**
   * Answer a call to a primitive the caller lacks scopes for as if it did not exist (and never tell its
   * subscribers anything), instead of the 403 step-up challenge that names the scopes. Default false.
   */
  hideForbiddenPrimitives?: boolean;
  /**
   * What request state is bound to besides the call, so a state sealed by another server that shares the
   * secret is refused. Always the server `name`, plus this (McpModule sets the canonical `auth.resource`).
   */
  requestStateAudience?: string;
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
  /**
   * Where the kernel writes what only the operator should read: redacted handler errors (without
   * `onHandlerError`), interceptors that throw, an event bus or task store that fails. Default: stderr.
   */
  logger?: McpLogger;
  /** More of the request to bind request state to (a tenant): see `RequestStateBind`. */
  requestState?: { bind?: RequestStateBind };
  /** Per-caller shares of the global caps. */
  limits?: McpLimitsOptions;
  /** Who a caller is: what tasks, request state, 2025-era replies and per-caller shares are bound to. */
  auth?: McpCallerOptions;
  /** Tool calls as tasks (tools registered with `taskSupport`): where they are kept, for how long, how many. */
  tasks?: TaskOptions;
}
