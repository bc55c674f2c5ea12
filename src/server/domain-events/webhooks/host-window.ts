/**
 * How many verification POSTs this instance sent each destination host in the current window (SEP-3415: the
 * verification POST "SHOULD be rate-limited per destination host"). The per-(caller, url) cache stops one caller
 * from challenging a victim twice; this stops many callers, or one caller with many paths, from aiming challenges
 * at the same host. A fixed window per host: at most `max` POSTs from its first one until `windowMs` later.
 */
export class HostWindow {
  /** Host → when its window started and how many POSTs it holds; insertion order is age order. */
  private readonly hosts = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    /** Most hosts remembered at once: past it, the oldest windows are forgotten first. */
    private readonly maxHosts: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one POST to `host`: undefined when it may go, else how long (ms) until the host's window ends. */
  take(host: string): number | undefined {
    const now = this.now();
    let window = this.hosts.get(host);
    if (!window || window.start + this.windowMs <= now) {
      this.hosts.delete(host);
      window = { start: now, count: 0 };
      this.hosts.set(host, window);
      this.trim(now);
    }
    if (window.count >= this.max) return window.start + this.windowMs - now;
    window.count++;
    return undefined;
  }

  private trim(now: number): void {
    for (const [host, window] of this.hosts) {
      if (this.hosts.size <= this.maxHosts && window.start + this.windowMs > now) break;
      this.hosts.delete(host);
    }
  }
}
