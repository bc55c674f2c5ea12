/**
 * Where the ids of consumed request states are remembered, for tools that need at-most-once rounds (a
 * payment, a deletion). Request state is stateless by design, so a client can replay a round; a tool that
 * opts in with `singleUseState` has each state's id consumed here before its handler runs, and a replay is
 * rejected. With several instances, use a shared implementation: in Redis, `SET <prefix:id> 1 NX PXAT
 * <expiresAt>` and "OK" means first use; in SQL, an insert into a table whose primary key is the id.
 */
export interface RequestStateStore {
  /**
   * Records the state id as used. Resolves true the first time an id is seen, false on every later call.
   * `expiresAt` (epoch ms) is when the state expires anyway: the id need not be kept after it.
   */
  consume(id: string, expiresAt: number): boolean | Promise<boolean>;
}

/** The default store: ids in process memory, forgotten once their state has expired. One instance only. */
export class InMemoryRequestStateStore implements RequestStateStore {
  private readonly used = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  consume(id: string, expiresAt: number): boolean {
    this.forgetExpired();
    if (this.used.has(id)) return false;
    this.used.set(id, expiresAt);
    return true;
  }

  get size(): number {
    return this.used.size;
  }

  // States share one TTL, so insertion order is close to expiry order: dropping from the front until the
  // first live id keeps each call amortised O(1).
  private forgetExpired(): void {
    const now = this.now();
    for (const [id, expiresAt] of this.used) {
      if (expiresAt > now) break;
      this.used.delete(id);
    }
  }
}
