import type { EventOccurrence } from '../../protocol/extensions/events.js';

/** How much of an event type's past is kept to replay from a cursor; whichever bound is reached first applies. */
export interface EventRetention {
  /** Most occurrences kept. Default 1,000. */
  maxCount?: number;
  /** Oldest occurrence kept, in milliseconds. Default 24 hours. */
  maxAgeMs?: number;
  /** Most bytes (of the occurrences' JSON) kept; a larger single occurrence is refused. Default 1 MiB. */
  maxBytes?: number;
}

export const DEFAULT_EVENT_RETENTION: Required<EventRetention> = {
  maxCount: 1_000,
  maxAgeMs: 24 * 60 * 60 * 1_000,
  maxBytes: 1024 * 1024,
};

/** One kept occurrence and its position in the log (1, 2, 3, ... since the log began). */
export interface LoggedOccurrence {
  readonly seq: number;
  readonly at: number;
  readonly bytes: number;
  readonly occurrence: EventOccurrence;
}

/** What a read from a position found. */
export interface LogRead {
  readonly items: readonly LoggedOccurrence[];
  /** The position after the last item given (the head when none was). */
  readonly position: number;
  /** Occurrences after the position read from were dropped (retention) or skipped (the age floor). */
  readonly truncated: boolean;
  /** More occurrences follow the ones given. */
  readonly hasMore: boolean;
}

/**
 * One event type's recent occurrences, in the order they were published, within its retention: the oldest go
 * first when a bound is passed. Positions only grow, so a reader that fell behind what is kept can be told.
 */
export class OccurrenceLog {
  private entries: LoggedOccurrence[] = [];
  /** Index of the oldest kept entry in `entries` (dropping from the front without copying each time). */
  private start = 0;
  private bytes = 0;
  private last = 0;

  constructor(
    private readonly retention: Required<EventRetention>,
    private readonly now: () => number,
  ) {}

  /** The position of the newest occurrence ever appended (0 before the first). */
  get head(): number {
    return this.last;
  }

  /** Occurrences kept now. */
  get size(): number {
    this.expire();
    return this.entries.length - this.start;
  }

  append(occurrence: EventOccurrence, bytes: number): LoggedOccurrence {
    const entry = { seq: ++this.last, at: this.now(), bytes, occurrence };
    this.entries.push(entry);
    this.bytes += bytes;
    const { maxCount, maxBytes } = this.retention;
    while (this.entries.length - this.start > maxCount || this.bytes > maxBytes) this.dropOldest();
    this.expire();
    return entry;
  }

  /**
   * Up to `max` occurrences after position `after`, none older than `floor` (ms since the epoch). Truncated when
   * some occurrence after `after` is no longer kept or was older than the floor.
   */
  read(after: number, max: number, floor = -Infinity): LogRead {
    this.expire();
    const kept = this.entries.length - this.start;
    const oldest = kept > 0 ? this.entries[this.start].seq : this.last + 1;
    let truncated = after + 1 < oldest;
    let index = this.start + Math.max(0, after + 1 - oldest);
    while (index < this.entries.length && this.entries[index].at < floor) {
      truncated = true;
      index++;
    }
    const items = this.entries.slice(index, index + max);
    const hasMore = index + items.length < this.entries.length;
    const position = items.length > 0 ? items[items.length - 1].seq : Math.max(after, this.last);
    return { items, position, truncated, hasMore };
  }

  private expire(): void {
    const cutoff = this.now() - this.retention.maxAgeMs;
    while (this.start < this.entries.length && this.entries[this.start].at < cutoff) this.dropOldest();
  }

  private dropOldest(): void {
    this.bytes -= this.entries[this.start].bytes;
    this.start++;
    // Compact once the dropped prefix outweighs what is kept, so the array stays within twice the retention.
    if (this.start > 64 && this.start * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
  }
}
