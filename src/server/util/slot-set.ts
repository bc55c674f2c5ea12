/** An item a `SlotSet` can hold: it carries its own position, so removing it needs no lookup. */
export interface Slotted {
  slot: number;
}

/**
 * An unordered set with constant-time add and delete and no hashing: each item remembers its index, and a
 * deleted item's place is taken by the last one. For the per-request bookkeeping of the hot path (calls in
 * flight, their deadlines), where a Map keyed by a fresh object costs more than the rest of the entry's work.
 */
export class SlotSet<T extends Slotted> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    item.slot = this.items.push(item) - 1;
  }

  delete(item: T): void {
    const at = item.slot;
    if (at < 0 || this.items[at] !== item) return;
    const last = this.items.pop()!;
    if (last !== item) {
      this.items[at] = last;
      last.slot = at;
    }
    item.slot = -1;
  }

  /** A copy, so `each` may delete while it goes. */
  values(): T[] {
    return this.items.slice();
  }
}
