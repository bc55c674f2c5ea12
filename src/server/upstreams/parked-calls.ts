import { randomUUID } from 'node:crypto';
import { McpError } from '../../protocol/mcp-error.js';
import type { UpstreamRelay } from './upstream-relay.js';

/** Most mounted calls waiting for their callers' answers on one instance, and for one caller. */
const MAX_PARKED = 1_000;
const MAX_PARKED_PER_CALLER = 32;
const BUSY_RETRY = { retryAfterMs: 1_000 };

interface Parked {
  relay: UpstreamRelay<unknown>;
  caller: string | undefined;
  timer: NodeJS.Timeout;
}

/**
 * Upstream calls kept open between the rounds of their callers, by a random id that travels in the round's
 * signed state (so only the caller it was sealed for can continue it). Each waits at most `expiresInMs` for
 * the retry, then its upstream call is ended; the count is bounded per instance and per caller.
 */
export class ParkedCalls {
  private readonly parked = new Map<string, Parked>();
  private readonly perCaller = new Map<string, number>();

  park(relay: UpstreamRelay<unknown>, caller: string | undefined, expiresInMs: number): string {
    if (this.parked.size >= MAX_PARKED)
      throw McpError.rateLimited('Server busy: too many mounted calls are waiting for input, retry later', BUSY_RETRY);
    const mine = caller === undefined ? 0 : (this.perCaller.get(caller) ?? 0);
    if (mine >= MAX_PARKED_PER_CALLER)
      throw McpError.rateLimited(
        `Server busy: this caller already has ${MAX_PARKED_PER_CALLER} mounted calls waiting for input, retry later`,
        BUSY_RETRY,
      );
    const id = randomUUID();
    const timer = setTimeout(() => {
      this.take(id);
      relay.abort.abort(new Error('the caller did not answer in time'));
    }, expiresInMs);
    timer.unref();
    this.parked.set(id, { relay, caller, timer });
    if (caller !== undefined) this.perCaller.set(caller, mine + 1);
    return id;
  }

  /** The parked call, taken out (a round continues it); undefined when it expired or another round took it. */
  take(id: string): UpstreamRelay<unknown> | undefined {
    const parked = this.parked.get(id);
    if (!parked) return undefined;
    this.parked.delete(id);
    clearTimeout(parked.timer);
    if (parked.caller !== undefined) {
      const left = this.perCaller.get(parked.caller)! - 1;
      if (left === 0) this.perCaller.delete(parked.caller);
      else this.perCaller.set(parked.caller, left);
    }
    return parked.relay;
  }

  close(): void {
    for (const id of [...this.parked.keys()]) this.take(id)?.abort.abort(new Error('the server is shutting down'));
  }
}
