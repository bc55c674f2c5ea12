import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { INTROSPECTION_RATE, NOT_POSITIVE_INTEGER } from '../../server/errors/configuration-messages.js';
/**
 * How many introspection calls may start: at most `maxConcurrent` in flight, and at most `perSecond` started per
 * second on average (a token bucket that holds `perSecond`, so a quiet server can absorb a burst that size).
 * Every unknown token costs one outbound call, so without this a client inventing tokens would make the
 * resource server flood its authorization server.
 */
export class IntrospectionBudget {
  private inFlight = 0;
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly maxConcurrent: number,
    private readonly perSecond: number,
    private readonly now: () => number,
  ) {
    if (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1)
      throw new McpConfigurationError(NOT_POSITIVE_INTEGER('auth.introspection.maxConcurrentCalls', maxConcurrent));
    if (!(perSecond > 0)) throw new McpConfigurationError(INTROSPECTION_RATE(perSecond));
    this.tokens = perSecond;
    this.refilledAt = now();
  }

  /** Takes a slot for one call; false when none is free (the caller answers 503). Every true needs a `release()`. */
  take(): boolean {
    if (this.inFlight >= this.maxConcurrent) return false;
    if (this.perSecond !== Infinity) {
      const now = this.now();
      this.tokens = Math.min(
        this.perSecond,
        this.tokens + (Math.max(now - this.refilledAt, 0) / 1000) * this.perSecond,
      );
      this.refilledAt = now;
      if (this.tokens < 1) return false;
      this.tokens -= 1;
    }
    this.inFlight++;
    return true;
  }

  release(): void {
    this.inFlight--;
  }
}
