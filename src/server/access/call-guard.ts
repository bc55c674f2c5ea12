import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { Caller } from './caller-identity.js';
import type { Slotted } from '../util/slot-set.js';
import { SweptSet } from '../util/swept-set.js';
import { isThenable } from '../util/when-ready.js';

const BUSY_RETRY = { retryAfterMs: 1_000 };

/** A call that outlived the server's deadline; its handler's signal has been aborted. */
export class DeadlineExceeded extends McpError {
  constructor(readonly timeoutMs: number) {
    super(ErrorCode.InternalError, `Request timed out: no result within ${timeoutMs} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * Where a call learns it must stop: a signal, or (cheaper for a transport, which then need not build an
 * AbortController per request) a subscription that returns its own unsubscribe. A source with a subscription
 * that also says whether it already gave up (`aborted`) spares a call that answers synchronously the subscription.
 */
export interface AbortSource {
  signal?: AbortSignal;
  onAbort?(listener: (reason: unknown) => void): () => void;
  readonly aborted?: boolean;
}

/** A running call's deadline, as the sweep sees it. */
interface Deadline extends Slotted {
  readonly at: number;
  readonly stop: (reason: unknown) => void;
}

/**
 * Bounds every handler call: at most `maxConcurrent` at once, and at most `maxPerCaller` of them for one
 * identified caller, so one caller's slow calls leave room for everyone else's (anonymous callers are one
 * bucket, bounded by the global cap alone); the excess is refused at once, never queued,
 * and at most `timeoutMs` each. The handler gets its own signal, which fires when the source aborts (client
 * gone, shutdown) or at the deadline; the call then settles immediately even if the handler ignores the
 * signal, so a hung handler holds neither the client nor a concurrency slot. The handler's AbortController is
 * created only if the handler reads its signal: most never do, and creating one costs more than the rest of a
 * small call. Deadlines are enforced by one sweep every tenth of the timeout (10 ms to 1 s), rather than a timer
 * per call: a call is stopped at most that long after its deadline.
 */
export class CallGuard {
  private active = 0;
  private readonly perCaller = new Map<string, number>();
  private readonly deadlines: SweptSet<Deadline>;

  constructor(
    private readonly timeoutMs: number,
    private readonly maxConcurrent: number,
    private readonly maxPerCaller: number = maxConcurrent,
  ) {
    const sweepMs = timeoutMs > 0 ? Math.min(Math.max(timeoutMs / 10, 10), 1_000) : 0;
    this.deadlines = new SweptSet(sweepMs, (deadlines) => this.stopOverdue(deadlines), true);
  }

  /** Calls being run now. */
  get inFlight(): number {
    return this.active;
  }

  /** The work's answer: itself when the work answered synchronously, else a promise of it (or of its refusal). */
  run<T>(
    source: AbortSource | undefined,
    caller: Caller,
    work: (signal: () => AbortSignal) => T | Promise<T>,
  ): T | Promise<T> {
    // Callers whose principal identifies nobody cannot be told apart: they share one share.
    const bucket = caller === undefined ? undefined : (caller ?? '');
    const busy = this.take(bucket);
    if (busy) return Promise.reject(busy);
    let settled = false;
    let controller: AbortController | undefined;
    let stopReason: { reason: unknown } | undefined;
    let deadline: Deadline | undefined;
    let unsubscribe: (() => void) | undefined;
    let rejectCall: ((reason: unknown) => void) | undefined;
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      this.release(bucket);
      if (deadline) this.deadlines.delete(deadline);
      unsubscribe?.();
      return true;
    };
    const stop = (reason: unknown) => {
      stopReason ??= { reason };
      controller?.abort(reason);
      if (finish()) rejectCall?.(reason);
    };
    const signal = () => {
      if (!controller) {
        controller = new AbortController();
        if (stopReason) controller.abort(stopReason.reason);
      }
      return controller.signal;
    };
    const cancelled = (reason: unknown) =>
      stop(reason instanceof McpError ? reason : new McpError(ErrorCode.InternalError, 'Request cancelled'));
    const watch = () => (unsubscribe = watchSource(source, cancelled));

    // A source that cannot say it is still there is watched before the work starts: work whose source was
    // already aborted never starts. One that can is watched only once the work turns out to be asynchronous,
    // since a synchronous answer has nothing left to stop.
    const alive = source?.onAbort ? source.aborted === false : !source?.signal?.aborted;
    if (!alive) {
      let refusal: unknown;
      rejectCall = (reason) => (refusal = reason);
      watch();
      if (settled) return Promise.reject(refusal);
      rejectCall = undefined;
    }
    let running: T | Promise<T>;
    try {
      running = work(signal);
    } catch (error) {
      return Promise.reject(finish() ? error : stopReason!.reason);
    }
    if (!isThenable(running)) {
      // A stop during the work (a synchronous abort) already settled the call with its reason.
      if (settled) return Promise.reject(stopReason!.reason);
      finish();
      return running;
    }
    const pending = running;
    return new Promise<T>((resolve, reject) => {
      rejectCall = reject;
      if (settled) return reject(stopReason!.reason);
      if (alive) watch();
      if (settled) return;
      if (this.timeoutMs > 0) this.deadlines.add((deadline = { slot: -1, at: Date.now() + this.timeoutMs, stop }));
      // Whichever loses (the work or a stop) settles later with nobody listening: both paths are handled here.
      Promise.resolve(pending).then(
        (value) => finish() && resolve(value),
        (error) => finish() && reject(error),
      );
    });
  }

  /**
   * Counts a call in, or says why it is refused: the server's cap, then the caller's share. Either is a "come back
   * later" (-32023, HTTP 429): the slots free as running calls end, so the hint is a short wait.
   */
  private take(bucket: string | undefined): McpError | undefined {
    if (this.active >= this.maxConcurrent)
      return McpError.rateLimited('Server busy: too many concurrent requests, retry later', BUSY_RETRY);
    const mine = bucket === undefined ? 0 : (this.perCaller.get(bucket) ?? 0);
    if (bucket !== undefined && mine >= this.maxPerCaller)
      return McpError.rateLimited(
        `Server busy: this caller already has ${this.maxPerCaller} requests running, retry later`,
        BUSY_RETRY,
      );
    this.active++;
    if (bucket !== undefined) this.perCaller.set(bucket, mine + 1);
    return undefined;
  }

  private release(bucket: string | undefined): void {
    this.active--;
    if (bucket === undefined) return;
    const left = this.perCaller.get(bucket)! - 1;
    if (left === 0) this.perCaller.delete(bucket);
    else this.perCaller.set(bucket, left);
  }

  private stopOverdue(deadlines: readonly Deadline[]): void {
    const now = Date.now();
    for (const deadline of deadlines) {
      if (deadline.at <= now) deadline.stop(new DeadlineExceeded(this.timeoutMs));
    }
  }
}

/** Calls `cancelled` when the source aborts (at once, for a signal already aborted); returns how to stop watching. */
function watchSource(source: AbortSource | undefined, cancelled: (reason: unknown) => void): (() => void) | undefined {
  if (source?.onAbort) return source.onAbort(cancelled);
  const outer = source?.signal;
  if (!outer) return undefined;
  if (outer.aborted) {
    cancelled(outer.reason);
    return undefined;
  }
  const listener = () => cancelled(outer.reason);
  outer.addEventListener('abort', listener, { once: true });
  return () => outer.removeEventListener('abort', listener);
}
