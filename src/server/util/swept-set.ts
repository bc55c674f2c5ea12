import { SlotSet, type Slotted } from './slot-set.js';

/**
 * Live items visited by one interval timer (deadlines, keep-alive upgrades) instead of a timer per item. The
 * timer starts with the first item and stops itself on a sweep that finds none, not when the last item leaves:
 * under load items mostly come and go one at a time, and would start and stop it for each. A set that
 * `holdsProcess` keeps the process alive while it holds items, as a timer per item would; otherwise never.
 */
export class SweptSet<T extends Slotted> {
  private readonly items = new SlotSet<T>();
  private timer: NodeJS.Timeout | undefined;

  /** `periodMs` ≤ 0: no sweeps at all, a plain set. */
  constructor(
    private readonly periodMs: number,
    private readonly visit: (items: readonly T[]) => void,
    private readonly holdsProcess: boolean,
  ) {}

  add(item: T): void {
    this.items.add(item);
    if (this.periodMs <= 0) return;
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.periodMs);
      if (!this.holdsProcess) this.timer.unref();
    } else if (this.holdsProcess && this.items.size === 1) {
      this.timer.ref();
    }
  }

  delete(item: T): void {
    this.items.delete(item);
    if (this.holdsProcess && this.items.size === 0) this.timer?.unref();
  }

  /** A copy, so the caller may delete while it goes. */
  values(): T[] {
    return this.items.values();
  }

  private sweep(): void {
    if (this.items.size > 0) {
      this.visit(this.items.values());
      return;
    }
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
