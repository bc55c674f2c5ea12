import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { Caller } from './caller-identity.js';
import type { Slotted } from '../util/slot-set.js';
import { SweptSet } from '../util/swept-set.js';

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

/**
 * A call under the guard: its record while it runs (its deadline, as the sweep sees it, and what it watches) and
 * where its handler's signal is made, on first read. The handler's context is one (`CallContext`), so a call
 * makes one object rather than a record, a closure per step and a context for their variables. Its members are
 * the guard's, set only when needed: a call answered synchronously whose handler never reads its signal sets none.
 */
export abstract class GuardedCall implements Slotted {
  declare slot: number;
  /** The deadline, in `Date.now()` time. */
  declare at: number;
  /** Why the call was stopped, once it was: its settlement and its signal's reason. */
  declare stopped: { reason: unknown } | undefined;
  declare controller: AbortController | undefined;
  declare settled: boolean | undefined;
  declare unsubscribe: (() => void) | undefined;
  declare rejectCall: ((reason: unknown) => void) | undefined;
  abstract readonly caller: Caller;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.stopped) this.controller.abort(this.stopped.reason);
    }
    return this.controller.signal;
  }
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
  private readonly deadlines: SweptSet<GuardedCall>;

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

  /**
   * `work(arg, call, call.caller)` under the guard: its answer itself when it answered synchronously, else a
   * promise of it (or of its refusal). The work and its argument are passed apart so that a call makes no closure.
   */
  run<A, C extends GuardedCall, T>(
    call: C,
    source: AbortSource | undefined,
    work: (arg: A, call: C, caller: Caller) => T | Promise<T>,
    arg: A,
  ): T | Promise<T> {
    const caller = call.caller;
    // An anonymous caller within the cap is counted here: most calls are, and `take` would cost each a call.
    if (caller === undefined && this.active < this.maxConcurrent) this.active++;
    else {
      const busy = this.take(caller);
      if (busy) return Promise.reject(busy);
    }
    // A source that cannot say it is still there is watched before the work starts: work whose source was
    // already aborted never starts. One that can is watched only once the work turns out to be asynchronous,
    // since a synchronous answer has nothing left to stop.
    const alive = source?.onAbort ? source.aborted === false : !source?.signal?.aborted;
    if (!alive) {
      call.settled = false;
      this.watch(call, source);
      if (call.settled) return Promise.reject(call.stopped!.reason);
    }
    let running: T | Promise<T>;
    try {
      running = work(arg, call, caller);
    } catch (error) {
      if (alive) this.release(caller);
      return Promise.reject(alive || this.finish(call) ? error : call.stopped!.reason);
    }
    // Spelled out rather than `isThenable`: this is every call's path.
    if (typeof (running as { then?: unknown } | null)?.then !== 'function') {
      if (alive && caller === undefined) this.active--;
      else if (alive) this.release(caller);
      // A stop during the work (a synchronous abort) already settled the call with its reason.
      else if (!this.finish(call)) return Promise.reject(call.stopped!.reason);
      return running;
    }
    if (alive) call.settled = false;
    return this.pending(call, source, alive, running as Promise<T>);
  }

  /** An asynchronous call's settlement: its work's, or a stop's (source aborted, deadline) if that comes first. */
  private pending<T>(
    call: GuardedCall,
    source: AbortSource | undefined,
    alive: boolean,
    running: Promise<T>,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (call.settled) return reject(call.stopped!.reason);
      call.rejectCall = reject;
      if (alive) this.watch(call, source);
      if (call.settled) return;
      if (this.timeoutMs > 0) {
        call.at = Date.now() + this.timeoutMs;
        this.deadlines.add(call);
      }
      // Whichever loses (the work or a stop) settles later with nobody listening: both paths are handled here.
      Promise.resolve(running).then(
        (value) => this.finish(call) && resolve(value),
        (error) => this.finish(call) && reject(error),
      );
    });
  }

  /** Ends a watched call once: its slot freed, its deadline and subscription dropped. False if it had ended. */
  private finish(call: GuardedCall): boolean {
    if (call.settled) return false;
    call.settled = true;
    this.release(call.caller);
    if (call.at !== undefined) this.deadlines.delete(call);
    call.unsubscribe?.();
    return true;
  }

  private stop(call: GuardedCall, reason: unknown): void {
    call.stopped ??= { reason };
    call.controller?.abort(reason);
    if (this.finish(call)) call.rejectCall?.(reason);
  }

  private watch(call: GuardedCall, source: AbortSource | undefined): void {
    call.unsubscribe = watchSource(source, (reason) =>
      this.stop(call, reason instanceof McpError ? reason : new McpError(ErrorCode.InternalError, 'Request cancelled')),
    );
  }

  /**
   * Counts a call in, or says why it is refused: the server's cap, then the caller's share. Either is a "come back
   * later" (-32023, HTTP 429): the slots free as running calls end, so the hint is a short wait. Callers whose
   * principal identifies nobody cannot be told apart: they share one share.
   */
  private take(caller: Caller): McpError | undefined {
    if (this.active >= this.maxConcurrent)
      return McpError.rateLimited('Server busy: too many concurrent requests, retry later', BUSY_RETRY);
    if (caller === undefined) {
      this.active++;
      return undefined;
    }
    const bucket = caller ?? '';
    const mine = this.perCaller.get(bucket) ?? 0;
    if (mine >= this.maxPerCaller)
      return McpError.rateLimited(
        `Server busy: this caller already has ${this.maxPerCaller} requests running, retry later`,
        BUSY_RETRY,
      );
    this.active++;
    this.perCaller.set(bucket, mine + 1);
    return undefined;
  }

  private release(caller: Caller): void {
    this.active--;
    if (caller === undefined) return;
    const bucket = caller ?? '';
    const left = this.perCaller.get(bucket)! - 1;
    if (left === 0) this.perCaller.delete(bucket);
    else this.perCaller.set(bucket, left);
  }

  private stopOverdue(deadlines: readonly GuardedCall[]): void {
    const now = Date.now();
    for (const call of deadlines) {
      if (call.at <= now) this.stop(call, new DeadlineExceeded(this.timeoutMs));
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
