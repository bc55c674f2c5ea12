import { ErrorCode } from '../../../protocol/error-codes.js';
import type { SubscribeEventsResult, UnsubscribeEventsResult } from '../../../protocol/extensions/events.js';
import { isPlainObject, type JsonRpcRequest } from '../../../protocol/jsonrpc.js';
import { McpError } from '../../../protocol/mcp-error.js';
import type { Caller } from '../../access/caller-identity.js';
import type { McpLogger } from '../../mcp-logger.js';
import type { McpRequestContext } from '../../mcp-request-context.js';
import type { Visibility } from '../../registry/visibility.js';
import { canonicalDigest } from '../../util/canonical-digest.js';
import type { EventCatalog, EventType } from '../event-catalog.js';
import { readFrom, subscriptionOf } from '../event-subscription.js';
import { CallbackRefused, callbackUrl, resolveCallback } from './callback-address.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import type { WebhookSettings } from './webhook-options.js';
import { secretBytes } from './webhook-signature.js';
import type { McpWebhookStore, WebhookRecord } from '../webhook-store.js';

/** Largest `arguments` (canonical JSON) a webhook subscription keeps. */
export const MAX_WEBHOOK_ARGUMENTS_BYTES = 8_192;
/** How long a rotated-out secret still signs, beside the new one. */
const ROTATION_GRACE_MS = 5 * 60 * 1_000;
/** How long a callback that echoed its challenge stays verified for its caller. */
const VERIFIED_FOR_MS = 24 * 60 * 60 * 1_000;

/**
 * `events/subscribe` and `events/unsubscribe` (SEP-3415 webhook delivery). A subscription is keyed by caller,
 * callback URL, event name and arguments (its `id` is derived from them, a routing handle and never an input),
 * needs an authenticated caller, an `https` callback that resolves to a public address (or a host the app
 * allows) and that echoes a signed challenge before anything is delivered to it, and lives for the TTL granted.
 */
export class WebhookMethods {
  readonly deliveries: WebhookDeliveries;
  /** (caller, url) pairs whose endpoint echoed a challenge, until when; insertion order is age order. */
  private readonly verified = new Map<string, number>();

  constructor(
    private readonly catalog: EventCatalog,
    private readonly visibility: Visibility,
    private readonly store: McpWebhookStore,
    private readonly settings: WebhookSettings,
    private readonly logger: McpLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.deliveries = new WebhookDeliveries(store, settings, logger, now);
    catalog.watchers.add({
      published: (type, occurrence, position) => void this.fanOut(type, occurrence, position),
      removed: (type) => void this.terminate(type),
    });
  }

  close(): void {
    this.deliveries.close();
  }

  async subscribe(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
  ): Promise<SubscribeEventsResult> {
    const owner = this.owner(request, caller);
    const params = request.params ?? {};
    const delivery = params.delivery;
    if (!isPlainObject(delivery)) throw McpError.invalidParams('Invalid params: "delivery" must be an object');
    if (delivery.mode !== undefined && delivery.mode !== 'webhook')
      throw McpError.invalidParams('Invalid params: "delivery.mode" must be "webhook"');
    const url = callbackUrl(delivery.url);
    secretBytes(delivery.secret);
    const args = argumentsOf(params.arguments);
    const id = typeof params.name === 'string' ? subscriptionId(owner, url.href, params.name, args) : '';
    let start;
    try {
      start = await subscriptionOf(this.catalog, this.visibility, request, transport, 'webhook', this.now());
    } catch (error) {
      // A refresh the guards now refuse ends the subscription: access is checked again on every refresh.
      if (error instanceof McpError && error.code === ErrorCode.NotFound && (await this.store.delete(id)))
        this.deliveries.forget(id);
      throw error;
    }
    const ttl = this.granted(params);
    const expiresAt = this.now() + ttl;
    const refreshBefore = new Date(expiresAt).toISOString();
    const existing = await this.store.get(id);
    if (existing) {
      const rotated = existing.secrets[0] !== delivery.secret;
      await this.store.put({
        ...existing,
        secrets: rotated ? [delivery.secret as string, existing.secrets[0]] : existing.secrets,
        previousUntil: rotated ? this.now() + ROTATION_GRACE_MS : existing.previousUntil,
        expiresAt,
      });
      const known = this.deliveries.status(id);
      const cursor = known.watermark ?? (await readFrom(this.catalog, { ...start, cursor: undefined }, 1)).position;
      const result: SubscribeEventsResult = { id, refreshBefore, cursor, truncated: false };
      if (known.status) result.deliveryStatus = known.status;
      return result;
    }
    await this.admit(owner);
    const record: WebhookRecord = {
      id,
      caller: owner,
      name: start.type.descriptor.name,
      arguments: args,
      url: url.href,
      secrets: [delivery.secret as string],
      previousUntil: 0,
      expiresAt,
    };
    await this.confirm(record, url);
    await this.store.put(record);
    const backlog = await readFrom(this.catalog, start, this.settings.maxQueue);
    for (const item of backlog.items) this.deliveries.enqueue(record, item.occurrence, item.position);
    const cursor = backlog.items.length > 0 && start.cursor !== undefined ? start.cursor : backlog.position;
    return { id, refreshBefore, cursor, truncated: backlog.truncated || backlog.hasMore };
  }

  async unsubscribe(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
  ): Promise<UnsubscribeEventsResult> {
    const owner = this.owner(request, caller);
    const params = request.params ?? {};
    const { name } = params;
    if (typeof name !== 'string') throw McpError.invalidParams('Invalid params: "name" must be a string');
    const type = this.catalog.get(name);
    if (!type || !(await this.visibility.admits(type, 'event', name, request, transport)))
      throw new McpError(ErrorCode.NotFound, `Event not found: ${name}`, { kind: 'event' });
    const delivery = isPlainObject(params.delivery) ? params.delivery : {};
    const url = callbackUrl(delivery.url);
    const id = subscriptionId(owner, url.href, name, argumentsOf(params.arguments));
    if (!(await this.store.delete(id)))
      throw new McpError(ErrorCode.NotFound, 'Subscription not found', { kind: 'subscription' });
    this.deliveries.forget(id);
    return {};
  }

  /** Webhooks need a caller who is someone: without one, the key could be guessed and anyone could end it. */
  private owner(request: JsonRpcRequest, caller: Caller): string {
    if (this.catalog.size === 0) throw McpError.methodNotFound(request.method);
    if (typeof caller !== 'string')
      throw new McpError(ErrorCode.Forbidden, 'Webhook subscriptions need an authenticated caller', {
        reason: 'unauthenticated',
      });
    return caller;
  }

  /** The TTL to grant: the suggestion within [minTtlMs, maxTtlMs]; none is the default; `null` (no expiry) the most. */
  private granted(params: Record<string, unknown>): number {
    const { ttlMs } = params;
    const { defaultTtlMs, minTtlMs, maxTtlMs } = this.settings;
    if (ttlMs === undefined) return defaultTtlMs;
    if (ttlMs === null) return maxTtlMs;
    if (!Number.isSafeInteger(ttlMs) || (ttlMs as number) < 0)
      throw McpError.invalidParams('Invalid params: "ttlMs" must be a non-negative integer or null');
    return Math.min(Math.max(ttlMs as number, minTtlMs), maxTtlMs);
  }

  private async admit(owner: string): Promise<void> {
    const held = await this.store.count(owner);
    const { maxSubscriptionsPerCaller, maxSubscriptions } = this.settings;
    if (held.caller >= maxSubscriptionsPerCaller)
      throw new McpError(ErrorCode.ResourceExhausted, 'Too many webhook subscriptions for this caller', {
        limit: 'subscriptionsPerCaller',
        max: maxSubscriptionsPerCaller,
      });
    if (held.total >= maxSubscriptions)
      throw new McpError(ErrorCode.ResourceExhausted, 'Too many webhook subscriptions', {
        limit: 'subscriptions',
        max: maxSubscriptions,
      });
  }

  /** The callback's address rule, then the challenge, once per (caller, url) while it stays verified. */
  private async confirm(record: WebhookRecord, url: URL): Promise<void> {
    const key = canonicalDigest([record.caller, record.url]);
    const until = this.verified.get(key);
    let target;
    try {
      target = await resolveCallback(url, this.settings.allowHosts);
    } catch (error) {
      if (!(error instanceof CallbackRefused)) throw error;
      if (error.forbidden) throw McpError.invalidParams(`Invalid params: ${error.message}`);
      throw endpointError('connection_refused');
    }
    if (until !== undefined && until > this.now()) return;
    const failure = await this.deliveries.verify(record, target);
    if (failure) throw endpointError(failure);
    this.verified.delete(key);
    this.verified.set(key, this.now() + VERIFIED_FOR_MS);
    // Bounded like the subscriptions: the oldest verifications are forgotten first (a later subscribe asks again).
    while (this.verified.size > this.settings.maxSubscriptions)
      this.verified.delete(this.verified.keys().next().value!);
  }

  private async fanOut(type: EventType, occurrence: Parameters<WebhookDeliveries['enqueue']>[1], position: string) {
    if (!type.descriptor.delivery.includes('webhook')) return;
    try {
      this.deliveries.sweep();
      for (const record of await this.store.ofEvent(type.descriptor.name))
        this.deliveries.enqueue(record, occurrence, position);
    } catch (error) {
      this.logger.error(`MCP webhooks: subscriptions to ${type.descriptor.name} could not be read`, error);
    }
  }

  /** A removed event type ends its subscriptions, each told once with a signed `terminated` envelope. */
  private async terminate(type: EventType): Promise<void> {
    const { name } = type.descriptor;
    try {
      for (const record of await this.store.ofEvent(name)) {
        if (!(await this.store.delete(record.id))) continue;
        this.deliveries.forget(record.id);
        const error = { code: ErrorCode.NotFound, message: `Event removed: ${name}`, data: { kind: 'event' } };
        void this.deliveries.control(record, { type: 'terminated', error });
      }
    } catch (error) {
      this.logger.error(`MCP webhooks: subscriptions to ${name} could not be ended`, error);
    }
  }
}

function argumentsOf(given: unknown): Record<string, unknown> {
  const args = given ?? {};
  if (!isPlainObject(args)) throw McpError.invalidParams('Invalid params: "arguments" must be an object');
  if (Buffer.byteLength(JSON.stringify(args)) > MAX_WEBHOOK_ARGUMENTS_BYTES)
    throw McpError.invalidParams(`Invalid params: "arguments" must be at most ${MAX_WEBHOOK_ARGUMENTS_BYTES} bytes`);
  return args;
}

/** The subscription's routing handle, the same for the same key on any instance and after a restart. */
function subscriptionId(caller: string, url: string, name: string, args: Record<string, unknown>): string {
  return `sub_${canonicalDigest([caller, url, name, args]).slice(0, 22)}`;
}

function endpointError(reason: string): McpError {
  return new McpError(ErrorCode.CallbackEndpointError, 'Callback endpoint failed verification', { reason });
}
