/** A caller's default share of a global cap: a quarter, so three more callers are still served while one holds all of its own. */
export function defaultShare(total: number): number {
  return Math.max(1, Math.floor(total / 4));
}
