import type { JsonSchema, MetaObject } from '../mcp-types.js';

/**
 * The Events extension (SEP-3415, `io.modelcontextprotocol/events`, draft of 2026-10-05 at 5eb68628): a server
 * lists the kinds of things that happen in it (`events/list`) and delivers their occurrences to a client that
 * polls (`events/poll`) or holds one long request open (`events/stream`). Cursors are opaque positions that
 * resume a subscription; `truncated` says occurrences between the cursor and what is delivered were skipped.
 */
export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';
export const EVENTS_LIST_METHOD = 'events/list';
export const EVENTS_POLL_METHOD = 'events/poll';
export const EVENTS_STREAM_METHOD = 'events/stream';
/** Webhook delivery: register (or refresh) a signed HTTPS callback under a TTL, and drop it. */
export const EVENTS_SUBSCRIBE_METHOD = 'events/subscribe';
export const EVENTS_UNSUBSCRIBE_METHOD = 'events/unsubscribe';
/** On `subscriptions/listen` streams that asked with `eventsListChanged: true`. */
export const EVENTS_LIST_CHANGED_NOTIFICATION = 'notifications/events/list_changed';
/** The header that names the subscription on every webhook POST (beside Standard Webhooks' three). */
export const WEBHOOK_SUBSCRIPTION_HEADER = 'X-MCP-Subscription-Id';

/** The stream's notifications: confirmation (and a fresh cursor after a gap), an occurrence, liveness, the end. */
export const EVENTS_ACTIVE_NOTIFICATION = 'notifications/events/active';
export const EVENTS_EVENT_NOTIFICATION = 'notifications/events/event';
export const EVENTS_HEARTBEAT_NOTIFICATION = 'notifications/events/heartbeat';
export const EVENTS_TERMINATED_NOTIFICATION = 'notifications/events/terminated';
/** A failure that leaves the subscription open (the store did not answer this time). */
export const EVENTS_ERROR_NOTIFICATION = 'notifications/events/error';

/** How an event type can be followed. */
export type EventDelivery = 'poll' | 'push' | 'webhook';
export const EVENT_DELIVERIES: readonly EventDelivery[] = ['poll', 'push', 'webhook'];

/** An event type as `events/list` names it. */
export interface EventDescriptor {
  name: string;
  description: string;
  delivery: EventDelivery[];
  inputSchema: JsonSchema;
  payloadSchema: JsonSchema;
  _meta?: MetaObject;
}

/** One thing that happened: what a poll result lists and a stream's `notifications/events/event` carries. */
export interface EventOccurrence {
  eventId: string;
  name: string;
  /** ISO 8601. */
  timestamp: string;
  data: Record<string, unknown>;
  /** The subscription's position after this occurrence (stream only; a poll carries it on the result). */
  cursor?: string | null;
}

export interface ListEventsResult {
  events: EventDescriptor[];
  nextCursor?: string;
  _meta?: MetaObject;
}

export interface PollEventsResult {
  events: EventOccurrence[];
  cursor: string | null;
  truncated: boolean;
  hasMore: boolean;
  nextPollMs: number;
  _meta?: MetaObject;
}

/** Why a webhook delivery or verification failed: a category, never what the endpoint said. */
export type WebhookFailure =
  'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx' | 'challenge_failed';

/** How a webhook subscription's deliveries are going, on a refresh. */
export interface WebhookDeliveryStatus {
  active: boolean;
  lastDeliveryAt: string | null;
  lastError: WebhookFailure | null;
  failedSince?: string;
}

export interface SubscribeEventsResult {
  /** Derived from (principal, url, name, arguments): the `X-MCP-Subscription-Id` of every POST. */
  id: string;
  /** ISO 8601: refresh before this, or the subscription ends. */
  refreshBefore: string | null;
  /** A safe-to-persist watermark. */
  cursor: string | null;
  truncated: boolean;
  deliveryStatus?: WebhookDeliveryStatus;
  _meta?: MetaObject;
}

/** `events/unsubscribe` answers an empty result. */
export interface UnsubscribeEventsResult {
  _meta?: MetaObject;
}

/** The answers of the extension's methods. */
export type EventsResult = ListEventsResult | PollEventsResult | SubscribeEventsResult | UnsubscribeEventsResult;
