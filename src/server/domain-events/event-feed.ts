import { ErrorCode } from '../../protocol/error-codes.js';
import {
  EVENTS_ACTIVE_NOTIFICATION,
  EVENTS_ERROR_NOTIFICATION,
  EVENTS_EVENT_NOTIFICATION,
  type EventOccurrence,
} from '../../protocol/extensions/events.js';
import type { EventCatalog, EventType } from './event-catalog.js';
import { readFrom, type SubscriptionStart } from './event-subscription.js';

type Send = (method: string, params: Record<string, unknown>) => void;

/**
 * What one `events/stream` has sent and where it stands. With a store of this process, occurrences come from the
 * publish itself; with a store other instances write to (`followMs`), the feed reads the store after its cursor
 * that often, so it also gets what they publish, in the store's order, each once.
 */
export class EventFeed {
  /** The position the stream has reached: the heartbeat's cursor. */
  cursor = '';
  // Occurrences published while the backlog is read wait here, so none falls between the two.
  private waiting: Array<[EventOccurrence, string]> | undefined = [];
  private reading = false;

  constructor(
    private readonly catalog: EventCatalog,
    private readonly type: EventType,
    private readonly send: Send,
  ) {}

  /** How often the store is read for occurrences; undefined when publishes in this process are all there is. */
  get followMs(): number | undefined {
    return this.catalog.store.followMs;
  }

  /** An occurrence published in this process. */
  published(occurrence: EventOccurrence, at: string): void {
    if (this.followMs !== undefined) return;
    if (this.waiting) this.waiting.push([occurrence, at]);
    else this.deliver(occurrence, at);
  }

  /** Confirms the stream with its cursor, then replays what is kept after the cursor the client gave. */
  async start(start: SubscriptionStart): Promise<void> {
    const backlog = await readFrom(this.catalog, start, this.type.retention.maxCount);
    this.cursor = backlog.position;
    this.send(EVENTS_ACTIVE_NOTIFICATION, { cursor: this.cursor, truncated: backlog.truncated });
    const replayed = new Set(backlog.items.map((item) => item.occurrence.eventId));
    for (const item of backlog.items) this.deliver(item.occurrence, item.position);
    for (const [occurrence, at] of this.waiting ?? [])
      if (!replayed.has(occurrence.eventId)) this.deliver(occurrence, at);
    this.waiting = undefined;
  }

  /**
   * Reads the store after the cursor and sends what it finds; a gap (the stream fell behind the retention) is
   * a fresh confirmation with `truncated: true`, and a store that cannot answer is a `notifications/events/error`.
   */
  async follow(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      const { name } = this.type.descriptor;
      const read = await this.catalog.store.read(
        name,
        this.cursor,
        this.type.retention.maxCount,
        -Infinity,
        this.type.retention,
      );
      if (!read) return;
      if (read.truncated) this.send(EVENTS_ACTIVE_NOTIFICATION, { cursor: read.position, truncated: true });
      for (const item of read.items) this.deliver(item.occurrence, item.position);
      this.cursor = read.position;
    } catch {
      const error = { code: ErrorCode.InternalError, message: 'Event store unavailable' };
      this.send(EVENTS_ERROR_NOTIFICATION, { error });
    } finally {
      this.reading = false;
    }
  }

  private deliver(occurrence: EventOccurrence, at: string): void {
    this.cursor = at;
    this.send(EVENTS_EVENT_NOTIFICATION, { ...occurrence, cursor: at });
  }
}
