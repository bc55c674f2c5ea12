import type { InputRequest, InputRequests, InputResponse, LoggingLevel } from '../../protocol/mcp-types.js';
import { McpError } from '../../protocol/mcp-error.js';
import { InputRequired } from '../input-required.js';
import type { McpContext, ProgressUpdate } from '../mcp-context.js';

/** What the relay keeps in the round's signed state: which parked upstream call the retry continues. */
export interface RelayState {
  upstreamCall: string;
}

/** Where what an upstream sends during a call goes: its requests for input, its logs, its progress. */
export interface RelaySink {
  ask(request: InputRequest): Promise<InputResponse>;
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  progress(update: ProgressUpdate): void;
}

/** A call's logs and progress, to the caller of `context`. */
export function contextSink(context: McpContext): Omit<RelaySink, 'ask'> {
  return {
    log: (level, data, logger) => context.log(level, data, logger),
    progress: (update) => context.reportProgress(update),
  };
}

interface Ask {
  request: InputRequest;
  answer(result: InputResponse): void;
}

const KEY_PREFIX: Record<InputRequest['method'], string> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

/**
 * One mounted call in flight to a 2025-era upstream, and what the upstream asks of the caller during it: its
 * progress and logs go to the caller's current round, and its requests for input (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`, sent while the call runs) are asked of the caller as a local tool
 * asks, through the kernel's input rounds: in a task they wait for `tasks/update`; otherwise the round ends with
 * `input_required` (which the 2025-era leg turns into requests on the caller's stream), the upstream call stays
 * open, parked, and the retry answers it. (A 2026-07-28 upstream asks in its result instead: `modernRounds`.)
 */
export class UpstreamRelay<T> implements RelaySink {
  private context: McpContext;
  private readonly asks = new Map<string, Ask>();
  private wake: (() => void) | undefined;
  private asked = 0;
  private outcome: { value: T } | { error: unknown } | undefined;
  /** Ends the upstream call: the caller went away during a round, the parked call expired, the task was cancelled. */
  readonly abort = new AbortController();

  constructor(context: McpContext, start: (relay: UpstreamRelay<T>) => Promise<T>) {
    this.context = context;
    start(this).then(
      (value) => this.settle({ value }),
      (error: unknown) => this.settle({ error }),
    );
  }

  /** The upstream asks for input: the caller is asked in the current round, if it can answer. */
  ask(request: InputRequest): Promise<InputResponse> {
    if (this.outcome) return Promise.reject(new Error('the call has ended'));
    if (!this.context.supports(request))
      return Promise.reject(McpError.methodNotFound(request.method, { reason: 'the caller cannot answer it' }));
    return new Promise((answer) => {
      this.asks.set(`${KEY_PREFIX[request.method]}_${this.asked++}`, { request, answer });
      this.wake?.();
    });
  }

  progress(update: ProgressUpdate): void {
    this.context.reportProgress(update);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    this.context.log(level, data, logger);
  }

  /**
   * One round of the call, in `context`: answers what the caller answered, then waits for the upstream's
   * result, or for its next questions, which end the round with `InputRequired` (outside a task: the gateway
   * parks the call and seals where it is into the round's state) or are asked in the task. The caller's going away during the round ends the upstream call.
   */
  async round(context: McpContext): Promise<T> {
    this.context = context;
    this.deliver(context.inputResponses);
    const stop = () => this.abort.abort(context.signal.reason);
    context.signal.addEventListener('abort', stop, { once: true });
    try {
      for (;;) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          if (this.outcome || this.asks.size > 0) resolve();
        });
        this.wake = undefined;
        if (this.outcome) return this.result();
        // Requests made together (a 2026 round's embedded requests) are asked together.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.outcome) return this.result();
        const requests: InputRequests = {};
        for (const [key, { request }] of this.asks) requests[key] = request;
        if (context.taskId === undefined) throw new InputRequired(requests);
        this.deliver(await context.requestInputs(requests));
      }
    } finally {
      context.signal.removeEventListener('abort', stop);
    }
  }

  private deliver(answers: Record<string, InputResponse>): void {
    for (const [key, ask] of this.asks) {
      if (!Object.hasOwn(answers, key)) continue;
      this.asks.delete(key);
      ask.answer(answers[key]);
    }
  }

  private result(): T {
    const outcome = this.outcome!;
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  private settle(outcome: { value: T } | { error: unknown }): void {
    this.outcome = outcome;
    this.wake?.();
  }
}
