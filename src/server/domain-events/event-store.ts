import type { EventOccurrence } from '../../protocol/extensions/events.js';
import { randomBytes } from 'node:crypto';
import { OccurrenceLog, type EventRetention } from './occurrence-log.js';
import type { McpWebhookStore } from './webhook-store.js';

/** An occurrence as a store keeps it, with the cursor that names the position after it. */
export interface StoredOccurrence {
  readonly position: string;
  readonly occurrence: EventOccurrence;
}

/** What a read from a cursor found. */
export interface EventStoreRead {
  readonly items: readonly StoredOccurrence[];
  /** The cursor after the last item given, or the head when none was. */
  readonly position: string;
  /** Occurrences after the cursor were dropped (retention), skipped (the age floor), or cannot be known. */
  readonly truncated: boolean;
  /** More occurrences follow the ones given. */
  readonly hasMore: boolean;
}

/**
 * Where event types keep their occurrences (SEP-3415), per type name, within the retention each call carries.
 * Positions are the cursors clients hold: a store shared by every instance (`nestjs-mcp/redis`) lets any
 * instance serve any cursor. Answers may be synchronous: the in-memory store's are, so a publish is readable
 * before `publishEvent` returns.
 */
export interface McpEventStore {
  /** Keeps the occurrence and drops what the retention no longer allows; resolves to its position. */
  append(
    name: string,
    occurrence: EventOccurrence,
    bytes: number,
    retention: Required<EventRetention>,
  ): string | Promise<string>;
  /** The position of the newest occurrence: where a subscription that starts now starts. */
  head(name: string, retention: Required<EventRetention>): string | Promise<string>;
  /**
   * Up to `max` occurrences after `cursor`, none older than `floor` (ms since the epoch); null for a cursor this
   * store never issued.
   */
  read(
    name: string,
    cursor: string,
    max: number,
    floor: number,
    retention: Required<EventRetention>,
  ): EventStoreRead | null | Promise<EventStoreRead | null>;
  /**
   * Set by a store other instances write to: an open `events/stream` reads it after its cursor this often (ms),
   * so occurrences published anywhere reach it. Unset, a stream gets what this process publishes, at once.
   */
  readonly followMs?: number;
  /** The event type was removed: what is kept for it may go. */
  forget?(name: string): void;
  /**
   * Where webhook subscriptions (`events/subscribe`) are kept, beside the occurrences: a store other instances
   * share brings one they share too. Unset, they are kept in this process.
   */
  readonly webhooks?: McpWebhookStore;
}

interface Kept {
  readonly log: OccurrenceLog;
  /** Names this log among every log that ever was: a cursor of another (before a restart, another instance) is not ours. */
  readonly epoch: string;
}

/** The default store: one bounded log per event type in this process; cursors do not outlive it. */
export class InMemoryEventStore implements McpEventStore {
  private readonly logs = new Map<string, Kept>();

  constructor(private readonly now: () => number = Date.now) {}

  append(name: string, occurrence: EventOccurrence, bytes: number, retention: Required<EventRetention>): string {
    const kept = this.kept(name, retention);
    return `${kept.epoch}-${kept.log.append(occurrence, bytes).seq}`;
  }

  head(name: string, retention: Required<EventRetention>): string {
    const kept = this.kept(name, retention);
    return `${kept.epoch}-${kept.log.head}`;
  }

  read(
    name: string,
    cursor: string,
    max: number,
    floor: number,
    retention: Required<EventRetention>,
  ): EventStoreRead | null {
    const { log, epoch } = this.kept(name, retention);
    const match = /^([0-9a-f]{16})-(\d{1,15})$/.exec(cursor);
    if (!match) return null;
    // A position of another log may hide any number of occurrences the client never saw: what is kept is given.
    const foreign = match[1] !== epoch;
    const after = foreign ? 0 : Number(match[2]);
    if (after > log.head) return null;
    const read = log.read(after, max, floor);
    return {
      items: read.items.map((item) => ({ position: `${epoch}-${item.seq}`, occurrence: item.occurrence })),
      position: `${epoch}-${read.position}`,
      truncated: read.truncated || foreign,
      hasMore: read.hasMore,
    };
  }

  forget(name: string): void {
    this.logs.delete(name);
  }

  private kept(name: string, retention: Required<EventRetention>): Kept {
    let kept = this.logs.get(name);
    if (!kept) {
      kept = { log: new OccurrenceLog(retention, this.now), epoch: randomBytes(8).toString('hex') };
      this.logs.set(name, kept);
    }
    return kept;
  }
}
