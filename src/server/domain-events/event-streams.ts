import { setMaxListeners } from 'node:events';
import { ErrorCode } from '../../protocol/error-codes.js';
import { EVENTS_HEARTBEAT_NOTIFICATION, EVENTS_TERMINATED_NOTIFICATION } from '../../protocol/extensions/events.js';
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { SubscriptionsListenResult } from '../../protocol/mcp-types.js';
import { META_SUBSCRIPTION_ID } from '../../protocol/versions.js';
import type { Caller } from '../access/caller-identity.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { ListenSlots, type ListenLimits } from '../methods/listen-access.js';
import { untilStopped } from '../methods/listen.js';
import type { Visibility } from '../registry/visibility.js';
import type { EventCatalog, OccurrenceListener } from './event-catalog.js';
import { subscriptionOf } from './event-subscription.js';
import { EventFeed } from './event-feed.js';

/** How often a quiet stream says it is alive, with the position checked up to (SEP-3415: at least every 30 s). */
export const HEARTBEAT_MS = 20_000;

/**
 * `events/stream` (SEP-3415 push delivery): one long request per subscription. It is confirmed with
 * `notifications/events/active` (the cursor, and `truncated` when the one given fell behind), replays what the
 * log keeps after the cursor, then sends each occurrence as it is published, a heartbeat while quiet, and ends
 * when the client goes away, the server closes, the caller's credential expires, or the event type is removed
 * (`notifications/events/terminated` first). Like listen streams, these are exempt from the call deadline and
 * the concurrency cap, and held to `listen.maxStreams` and `listen.maxStreamsPerCaller`, counted apart.
 */
export class EventStreams {
  private readonly closing = new AbortController();
  private readonly slots: ListenSlots;

  constructor(
    private readonly catalog: EventCatalog,
    private readonly visibility: Visibility,
    limits: ListenLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.slots = new ListenSlots(limits);
    // Every open stream waits on this one signal; that many listeners is the design, not a leak.
    setMaxListeners(0, this.closing.signal);
  }

  /** Ends every open stream with its closing result; later ones are refused. */
  close(): void {
    this.closing.abort();
  }

  async stream(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
  ): Promise<SubscriptionsListenResult> {
    if (this.catalog.size === 0) throw McpError.methodNotFound(request.method);
    const notify = transport.notify;
    if (!notify) throw McpError.methodNotFound(`${request.method} (it needs a streaming transport)`);
    const start = await subscriptionOf(this.catalog, this.visibility, request, transport, 'push', this.now());
    if (this.closing.signal.aborted) throw new McpError(ErrorCode.InternalError, 'Server is shutting down');
    const release = this.slots.take(caller);
    const meta = { [META_SUBSCRIPTION_ID]: request.id };
    const send = (method: string, params: Record<string, unknown>) =>
      notify({ jsonrpc: '2.0', method, params: { ...params, _meta: meta } });
    const removed = new AbortController();
    const { type } = start;
    const feed = new EventFeed(this.catalog, type, send);
    const listener: OccurrenceListener = {
      occurrence: (occurrence, at) => feed.published(occurrence, at),
      removed() {
        const error = {
          code: ErrorCode.NotFound,
          message: `Event removed: ${type.descriptor.name}`,
          data: { kind: 'event' },
        };
        send(EVENTS_TERMINATED_NOTIFICATION, { error });
        removed.abort();
      },
    };
    type.listeners.add(listener);
    const timers: NodeJS.Timeout[] = [];
    try {
      await feed.start(start);
      timers.push(setInterval(() => send(EVENTS_HEARTBEAT_NOTIFICATION, { cursor: feed.cursor }), HEARTBEAT_MS));
      if (feed.followMs !== undefined) timers.push(setInterval(() => void feed.follow(), feed.followMs));
      for (const timer of timers) timer.unref();
      await untilStopped(transport, AbortSignal.any([this.closing.signal, removed.signal]));
    } finally {
      timers.forEach(clearInterval);
      type.listeners.delete(listener);
      release();
    }
    return { _meta: meta };
  }
}
