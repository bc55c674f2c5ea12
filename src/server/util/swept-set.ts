import type { Slotted } from './slot-set.js';

/**
 * Live items visited by one interval timer (deadlines, keep-alive upgrades) instead of a timer per item. The
 * timer starts with the first item and stops itself on a sweep that finds none, not when the last item leaves:
 * under load items mostly come and go one at a time, and would start and stop it for each. A set that
 * `holdsProcess` keeps the process alive while it holds items, as a timer per item would; otherwise never.
 *
 * An unordered set with constant-time add and delete and no hashing: each item remembers its index, and a
 * deleted item's place is taken by the last one. For the per-request bookkeeping of the hot path (calls in
 * flight, their deadlines, bodies being read), where a Map keyed by a fresh object costs more than the rest of
 * the entry's work; the slots are kept here rather than in a set of their own, which cost each add and delete
 * one more call.
 */
export class SweptSet<T extends Slotted> {
  private readonly items: T[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** `periodMs` ≤ 0: no sweeps at all, a plain set. */
  constructor(
    private readonly periodMs: number,
    private readonly visit: (items: readonly T[]) => void,
    private readonly holdsProcess: boolean,
  ) {}

  add(item: T): void {
    const size = this.items.push(item);
    item.slot = size - 1;
    if (this.periodMs <= 0) return;
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.periodMs);
      if (!this.holdsProcess) this.timer.unref();
    } else if (this.holdsProcess && size === 1) {
      this.timer.ref();
    }
  }

  /** Ignores an item it does not hold (one deleted already). */
  delete(item: T): void {
    const items = this.items;
    const at = item.slot;
    if (at < 0 || items[at] !== item) return;
    const last = items.pop()!;
    if (last !== item) {
      items[at] = last;
      last.slot = at;
    }
    item.slot = -1;
    if (this.holdsProcess && items.length === 0) this.timer?.unref();
  }

  /** A copy, so the caller may delete while it goes. */
  values(): T[] {
    return this.items.slice();
  }

  private sweep(): void {
    if (this.items.length > 0) {
      this.visit(this.items.slice());
      return;
    }
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
