import { randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { setMaxListeners } from 'node:events';
import {
  WEBHOOK_SUBSCRIPTION_HEADER,
  type EventOccurrence,
  type WebhookDeliveryStatus,
  type WebhookFailure,
} from '../../../protocol/extensions/events.js';
import type { McpLogger } from '../../mcp-logger.js';
import { CallbackRefused, resolveCallback, type CallbackTarget } from './callback-address.js';
import { postWebhook, type PostOutcome } from './webhook-post.js';
import { secretBytes, signature } from './webhook-signature.js';
import type { WebhookSettings } from './webhook-options.js';
import type { McpWebhookStore, WebhookRecord } from '../webhook-store.js';

/** What this instance sends one subscription: a queue it drains in order, one POST (and its retries) at a time. */
interface Outbox {
  readonly waiting: Array<{ occurrence: EventOccurrence; position: string }>;
  running: boolean;
  /** A position at or before which everything was acknowledged or given up: the safe-to-persist cursor. */
  watermark?: string;
  /** The newest position skipped because the queue was full: a `gap` envelope goes out next. */
  gap?: string;
  status: WebhookDeliveryStatus;
  expiresAt: number;
  /** The attempts of the current failure-rate window: when it started, how many, how many failed. */
  window: { start: number; attempts: number; failures: number };
  /** While suspended: the subscription's expiry then. A record that says otherwise was refreshed (anywhere). */
  suspendedAt?: number;
}

/** Delivery bodies above this are not sent (SEP-3415's delivery profile: at or under 256 KiB); a `gap` covers them. */
export const MAX_DELIVERY_BYTES = 256 * 1_024;
/** The share of failed attempts in a window, over `suspendAfterAttempts` of them, that suspends delivery. */
const SUSPEND_FAILURE_RATE = 0.95;

/** A POST's outcome as a delivery sees it: done (2xx, or a refusal not to retry), or failed for a reason. */
type Attempt = { done: true } | { done: false; reason: WebhookFailure };

/**
 * Webhook deliveries from this instance: per subscription, a bounded queue sent in order, each POST signed
 * afresh (Standard Webhooks headers and `X-MCP-Subscription-Id`), to an address checked at that moment, retried
 * with doubling waits up to `maxAttempts`; 410 and 413 are not retried. The record is read again before every
 * try, so an unsubscribe stops what is queued and a rotated secret signs what follows. A subscription whose
 * attempts keep failing (a sustained rate over a window, not a count) is suspended until the client refreshes.
 */
export class WebhookDeliveries {
  private readonly outboxes = new Map<string, Outbox>();
  private readonly closing = new AbortController();

  constructor(
    private readonly store: McpWebhookStore,
    private readonly settings: WebhookSettings,
    private readonly logger: McpLogger,
    private readonly now: () => number = Date.now,
  ) {
    setMaxListeners(0, this.closing.signal);
  }

  /** Queues an occurrence for a subscription; past `maxQueue`, the oldest waiting one is skipped for a `gap`. */
  enqueue(record: WebhookRecord, occurrence: EventOccurrence, position: string): void {
    if (this.closing.signal.aborted) return;
    const outbox = this.outbox(record);
    outbox.waiting.push({ occurrence, position });
    if (outbox.waiting.length > this.settings.maxQueue) outbox.gap = outbox.waiting.shift()!.position;
    if (!outbox.running && outbox.status.active) void this.drain(record.id, outbox);
  }

  /**
   * What this instance knows of a subscription's deliveries (nothing when it delivered none), as it was before
   * this call; a suspended delivery resumes (a refresh is the client's sign of life, SEP-3415).
   */
  reactivate(id: string): { watermark?: string; status?: WebhookDeliveryStatus } {
    const outbox = this.outboxes.get(id);
    if (!outbox) return {};
    const known = { watermark: outbox.watermark, status: { ...outbox.status } };
    if (!outbox.status.active) this.resume(id, outbox);
    return known;
  }

  /** Drops what waits for a subscription that ended. */
  forget(id: string): void {
    this.outboxes.get(id)?.waiting.splice(0);
    this.outboxes.delete(id);
  }

  /** Stops every delivery: nothing more is sent, waits between retries end. */
  close(): void {
    this.closing.abort();
    for (const outbox of this.outboxes.values()) outbox.waiting.splice(0);
  }

  /**
   * Sends a control envelope (`terminated`, `gap`) with the retries an event gets. Resolves once it was
   * acknowledged or given up.
   */
  async control(record: WebhookRecord, body: Record<string, unknown>): Promise<void> {
    await this.deliver(record, `msg_${String(body.type)}_${randomBytes(12).toString('hex')}`, JSON.stringify(body));
  }

  /**
   * The verification handshake before a first delivery to a callback: a signed `verification` envelope with a
   * fresh nonce, which the endpoint must echo in a 2xx body. Resolves to undefined when it did, else to the
   * category of what went wrong (never what the endpoint said).
   */
  async verify(record: WebhookRecord, target: CallbackTarget): Promise<WebhookFailure | undefined> {
    const challenge = randomBytes(24).toString('base64url');
    const id = `msg_verification_${randomBytes(12).toString('hex')}`;
    const outcome = await this.post(record, target, id, JSON.stringify({ type: 'verification', challenge }));
    if ('failure' in outcome) return outcome.failure;
    if (outcome.status < 200 || outcome.status >= 300)
      return outcome.status >= 400 ? httpFailure(outcome.status) : 'challenge_failed';
    let echoed: unknown;
    try {
      echoed = (JSON.parse(outcome.body) as { challenge?: unknown }).challenge;
    } catch {
      return 'challenge_failed';
    }
    const [given, sent] = [Buffer.from(String(echoed)), Buffer.from(challenge)];
    return typeof echoed === 'string' && given.length === sent.length && timingSafeEqual(given, sent)
      ? undefined
      : 'challenge_failed';
  }

  private outbox(record: WebhookRecord): Outbox {
    let outbox = this.outboxes.get(record.id);
    if (!outbox) {
      outbox = {
        waiting: [],
        running: false,
        status: { active: true, lastDeliveryAt: null, lastError: null },
        expiresAt: 0,
        window: { start: this.now(), attempts: 0, failures: 0 },
      };
      this.outboxes.set(record.id, outbox);
    }
    // Refreshed on another instance since it was suspended here: delivery resumes here too.
    if (outbox.suspendedAt !== undefined && record.expiresAt !== outbox.suspendedAt) this.resume(record.id, outbox);
    outbox.expiresAt = record.expiresAt;
    return outbox;
  }

  private resume(id: string, outbox: Outbox): void {
    outbox.status = { ...outbox.status, active: true };
    outbox.suspendedAt = undefined;
    outbox.window = { start: this.now(), attempts: 0, failures: 0 };
    if (!outbox.running && outbox.waiting.length > 0) void this.drain(id, outbox);
  }

  private async drain(id: string, outbox: Outbox): Promise<void> {
    outbox.running = true;
    try {
      while (outbox.waiting.length > 0 && outbox.status.active && !this.closing.signal.aborted) {
        const record = await this.store.get(id);
        if (!record) return this.forget(id);
        if (outbox.gap !== undefined) {
          const cursor = outbox.gap;
          outbox.gap = undefined;
          await this.control(record, { type: 'gap', cursor });
          outbox.watermark = cursor;
        }
        const next = outbox.waiting.shift();
        if (!next) break;
        // One at a time, in order: everything before this one is settled, so its own position is safe to persist.
        const body = JSON.stringify({ ...next.occurrence, cursor: next.position });
        if (Buffer.byteLength(body) > MAX_DELIVERY_BYTES) {
          // Too large for a webhook: skipped as a gap, so the client knows to read what it missed some other way.
          this.logger.warn(
            `MCP webhooks: ${next.occurrence.name} ${next.occurrence.eventId} is over 256 KiB, sent as a gap`,
          );
          await this.control(record, { type: 'gap', cursor: next.position });
        } else if (!(await this.deliver(record, next.occurrence.eventId, body, outbox))) {
          // Suspended mid-way: it is tried again, first, once the client refreshes.
          outbox.waiting.unshift(next);
          break;
        }
        outbox.watermark = next.position;
      }
    } catch (error) {
      this.logger.error(`MCP webhooks: deliveries to subscription ${id} stopped`, error);
    } finally {
      outbox.running = false;
    }
  }

  /**
   * Tries one body up to `maxAttempts` times, reading the record again before each retry. False when delivery
   * was suspended before it settled (acknowledged or given up).
   */
  private async deliver(record: WebhookRecord, id: string, body: string, outbox?: Outbox): Promise<boolean> {
    const { maxAttempts, retryDelayMs, maxRetryDelayMs } = this.settings;
    let current: WebhookRecord | undefined = record;
    for (let attempt = 1; current && !this.closing.signal.aborted; attempt++) {
      const result = await this.attempt(current, id, body);
      if (outbox) this.note(outbox, result, current.expiresAt);
      if (outbox && !outbox.status.active) return false;
      if (result.done || attempt >= maxAttempts) return true;
      const wait = Math.min(retryDelayMs * 2 ** (attempt - 1), maxRetryDelayMs);
      await sleep(wait, undefined, { signal: this.closing.signal, ref: false }).catch(() => undefined);
      current = await this.store.get(record.id);
    }
    return true;
  }

  private async attempt(record: WebhookRecord, id: string, body: string): Promise<Attempt> {
    let target: CallbackTarget;
    try {
      target = await resolveCallback(new URL(record.url), this.settings.allowHosts);
    } catch (error) {
      if (error instanceof CallbackRefused) return { done: false, reason: 'connection_refused' };
      throw error;
    }
    const outcome = await this.post(record, target, id, body);
    if ('failure' in outcome) return { done: false, reason: outcome.failure };
    if (outcome.status >= 200 && outcome.status < 300) return { done: true };
    // The receiver does not want it again (410), or cannot take it at that size (413): given up at once.
    if (outcome.status === 410 || outcome.status === 413) return { done: true };
    return { done: false, reason: httpFailure(outcome.status) };
  }

  private post(record: WebhookRecord, target: CallbackTarget, id: string, body: string): Promise<PostOutcome> {
    const timestamp = Math.floor(this.now() / 1000);
    const secrets = (this.now() < record.previousUntil ? record.secrets : record.secrets.slice(0, 1)).map(secretBytes);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(secrets, id, timestamp, body),
      [WEBHOOK_SUBSCRIPTION_HEADER]: record.id,
    };
    return postWebhook(target, headers, body, { timeoutMs: this.settings.timeoutMs, ca: this.settings.ca });
  }

  /**
   * Records an attempt, and suspends delivery when, over at least `suspendAfterAttempts` attempts in the window,
   * nearly all failed: a blip does not suspend a healthy subscription, nor a handful of failures a quiet one.
   */
  private note(outbox: Outbox, result: Attempt, expiresAt: number): void {
    const now = this.now();
    const at = new Date(now).toISOString();
    if (result.done) outbox.status = { active: true, lastDeliveryAt: at, lastError: null };
    else outbox.status = { ...outbox.status, lastError: result.reason, failedSince: outbox.status.failedSince ?? at };
    if (outbox.window.start + this.settings.suspendWindowMs <= now)
      outbox.window = { start: now, attempts: 0, failures: 0 };
    const window = outbox.window;
    window.attempts++;
    if (!result.done) window.failures++;
    if (
      window.attempts >= this.settings.suspendAfterAttempts &&
      window.failures >= window.attempts * SUSPEND_FAILURE_RATE
    ) {
      outbox.status = { ...outbox.status, active: false };
      outbox.suspendedAt = expiresAt;
    }
  }

  /**
   * Drops the outboxes of subscriptions that lapsed with nothing waiting (once per publish), so what this
   * instance holds stays bounded by the subscriptions that live.
   */
  sweep(): void {
    const now = this.now();
    for (const [id, outbox] of this.outboxes)
      if (!outbox.running && (outbox.waiting.length === 0 || !outbox.status.active) && outbox.expiresAt <= now)
        this.outboxes.delete(id);
  }
}

function httpFailure(status: number): WebhookFailure {
  // A redirect is not followed: the endpoint answered, and not with a 2xx.
  return status >= 500 ? 'http_5xx' : 'http_4xx';
}
