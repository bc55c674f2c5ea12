/** Per-caller fair shares of the server's global caps; anonymous callers are one bucket, bounded by the global caps alone. */
export interface McpLimitsOptions {
  /** Most requests one identified caller may have running at once. Default: a quarter of `maxConcurrentCalls` (at least 1). */
  maxConcurrentCallsPerCaller?: number;
  /** Most 2025-era calls of one identified caller waiting for client input at once. Default: a quarter of `maxWaitingCalls` (at least 1). */
  maxWaitingCallsPerCaller?: number;
}

/** A caller's default share of a global cap: a quarter, so three more callers are still served while one holds all of its own. */
export function defaultShare(total: number): number {
  return Math.max(1, Math.floor(total / 4));
}
