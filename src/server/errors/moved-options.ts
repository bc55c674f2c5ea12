import { McpConfigurationError } from './configuration-error.js';
import { MOVED_OPTION } from './configuration-messages.js';

/** Every key of the earlier flat options the kernel took, and where it lives in the grouped shape. */
export const MOVED_SERVER_OPTIONS: Readonly<Record<string, string>> = Object.freeze({
  title: 'info.title',
  description: 'info.description',
  websiteUrl: 'info.websiteUrl',
  icons: 'info.icons',
  callTimeoutMs: 'limits.callTimeoutMs',
  maxConcurrentCalls: 'limits.maxConcurrentCalls',
  pageSize: 'limits.pageSize',
  cache: 'lists.cache',
  hideForbiddenPrimitives: 'hideForbidden',
  eventBus: 'listen.eventBus',
  maxSubscriptions: 'listen.maxStreams',
  maxSubscriptionsPerCaller: 'listen.maxStreamsPerCaller',
  maxResourceSubscriptions: 'listen.maxResourceSubscriptions',
  requestStateSecret: 'requestState.secret',
  requestStateTtlMs: 'requestState.ttlMs',
  requestStateStore: 'requestState.store',
  requestStateAudience: 'requestState.audience',
  replyRouter: 'legacy.replyRouter',
  clientReplyTimeoutMs: 'legacy.replyTimeoutMs',
  maxWaitingCalls: 'legacy.maxWaitingCalls',
  maxReplyBytes: 'legacy.maxReplyBytes',
  redactErrors: 'observability.redactErrors',
  onHandlerError: 'observability.onHandlerError',
});

/** The same for `McpModule`, whose flat options also held the HTTP and observability keys. */
export const MOVED_MODULE_OPTIONS: Readonly<Record<string, string>> = Object.freeze({
  ...MOVED_SERVER_OPTIONS,
  hideDeniedTools: 'hideForbidden',
  maxBodyBytes: 'http.maxBodyBytes',
  maxResponseBytes: 'http.maxResponseBytes',
  sseKeepAliveMs: 'http.sseKeepAliveMs',
  drainTimeoutMs: 'http.drainTimeoutMs',
  cors: 'http.cors',
  allowedHosts: 'http.allowedHosts',
  allowedOrigins: 'http.allowedOrigins',
  enabled: 'http.hostOriginCheck',
  serverTimeouts: 'http.serverTimeouts',
  logFailedCalls: 'observability.logFailedCalls',
  telemetry: 'observability.telemetry',
  onCall: 'observability.onCall',
});

/**
 * Refuses options written in the earlier flat shape, naming where each key lives now: a moved key left in place
 * would otherwise be ignored without a word (a `requestStateSecret` that signs nothing, a `cors` that allows no one).
 */
export function rejectMovedOptions(options: object, moved: Readonly<Record<string, string>>, where: string): void {
  for (const key of Object.keys(options)) {
    const place = Object.hasOwn(moved, key) ? moved[key] : undefined;
    if (place !== undefined) throw new McpConfigurationError(MOVED_OPTION(where, key, place));
  }
  // `legacy` was the mode itself; it is the group now.
  const legacy = (options as { legacy?: unknown }).legacy;
  if (typeof legacy === 'string') throw new McpConfigurationError(MOVED_OPTION(where, 'legacy', 'legacy.mode'));
}
