import { ErrorCode } from '../protocol/error-codes.js';
import { McpError } from '../protocol/mcp-error.js';

/** A call that outlived the server's deadline; its handler's signal has been aborted. */
export class DeadlineExceeded extends McpError {
  constructor(readonly timeoutMs: number) {
    super(ErrorCode.InternalError, `Request timed out: no result within ${timeoutMs} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * Bounds every handler call: at most `maxConcurrent` at once (the excess is refused at once, never queued),
 * and at most `timeoutMs` each. The handler gets its own signal, which fires when the transport's signal fires
 * (client gone, shutdown) or at the deadline; the call then settles immediately even if the handler ignores
 * the signal, so a hung handler holds neither the client nor a concurrency slot.
 */
export class CallGuard {
  private active = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly maxConcurrent: number,
  ) {}

  /** Calls being run now. */
  get inFlight(): number {
    return this.active;
  }

  async run<T>(outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.active >= this.maxConcurrent) {
      throw new McpError(ErrorCode.InternalError, 'Server busy: too many concurrent requests, retry later');
    }
    this.active++;
    const controller = new AbortController();
    const onOuterAbort = () =>
      controller.abort(outer?.reason instanceof McpError ? outer.reason : new McpError(ErrorCode.InternalError, 'Request cancelled'));
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const timer = this.timeoutMs > 0 ? setTimeout(() => controller.abort(new DeadlineExceeded(this.timeoutMs)), this.timeoutMs) : undefined;
    const stopped = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    // Whichever loses the race settles later with nobody listening; that must not become an unhandled rejection.
    stopped.catch(() => undefined);
    try {
      if (controller.signal.aborted) throw controller.signal.reason;
      const running = Promise.resolve().then(() => work(controller.signal));
      running.catch(() => undefined);
      return await Promise.race([running, stopped]);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
      this.active--;
    }
  }
}
