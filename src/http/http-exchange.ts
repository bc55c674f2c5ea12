import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderBag } from '../protocol/header-codec.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { McpRequestContext } from '../server/mcp-request-context.js';
import { AbortableExchange } from '../server/util/abortable-exchange.js';
import { exceedsBytes } from '../server/response-serializer.js';
import type { Slotted } from '../server/util/slot-set.js';
import type { SessionStream } from '../server/sessions/legacy-sessions.js';
import type { SessionEvent } from '../server/sessions/session-store.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

const KEEP_ALIVE = ': keep-alive\n\n';
// An event with an empty data field: SSE parsers dispatch no message for it (as for a session's priming event),
// but it is an event, not a comment, so a client reading the stream sees the call has started.
const OPENING_EVENT = 'data: \n\n';

export function sseFrame(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/** An event of a session's stream: resumable from its id. */
export function sessionFrame(event: SessionEvent): string {
  return `id: ${event.id}\nevent: message\ndata: ${event.data}\n\n`;
}

/** The first event of a session's stream: an id to resume from, no data, and how long to wait before that. */
export function primingFrame(id: string, retryMs: number): string {
  return `id: ${id}\nretry: ${retryMs}\ndata: \n\n`;
}

export interface HttpExchangeLimits {
  /** Interval of `:` keep-alive comments on an SSE stream; 0 disables them (and the silent-call upgrade). */
  keepAliveMs: number;
  /** Largest single message on the stream (a notification, a request to the client); a bigger one is not sent. */
  maxMessageBytes: number;
}

/**
 * What the kernel knows about one HTTP exchange: its headers, the caller, an abort signal that follows the
 * client, and a notification sink that turns the response into an SSE stream on the first notification. The
 * signal's AbortController is created only when something first reads it or aborts the exchange, and until then
 * a client that goes away is seen on the response itself. A call that stays silent for a keep-alive interval
 * also becomes a stream (when the client accepts SSE), so a proxy's idle timeout does not cut it: the driver's
 * one sweep timer calls `sweep()` on every exchange in flight, rather than each exchange arming a timer.
 */
export class HttpExchange extends AbortableExchange implements McpRequestContext, Slotted {
  // Declared, and assigned in the constructor, rather than class fields: a field is defined before the
  // constructor runs (so one it assigns is written twice), and a definition costs the interpreter more than an
  // assignment. One exchange is made per request.
  declare readonly headers: HeaderBag;
  declare private readonly res: ServerResponse;
  declare readonly httpRequest: unknown;
  declare readonly principal: unknown;
  declare readonly scopes: readonly string[] | undefined;
  declare readonly credentialExpiresAt: number | undefined;
  declare private readonly limits: HttpExchangeLimits;
  /** The kernel's work for this exchange, once dispatched: what a shutdown drain waits for. */
  declare work: Promise<unknown> | undefined;
  /** Its place among the driver's exchanges in flight. */
  declare slot: number;
  // Made when first read (`notify`, `openStream`), never in the constructor: most calls send nothing on their
  // stream, and a closure made in this derived class's constructor had its exchange promoted out of the young
  // generation on every request (measured: ~2.3 KB per request promoted, GC from ~1 to ~10 µs per request).
  declare private notifier: ((message: JsonRpcNotification | JsonRpcRequest) => boolean) | undefined;
  declare private opener: (() => boolean) | undefined;
  declare private watchingClose: boolean;
  /** Sweeps this exchange has stayed silent through; undefined when it may not become a stream. */
  declare private silentSweeps: number | undefined;
  /** Made once the response becomes a stream, or a session makes it resumable: most answers are plain JSON. */
  declare private sse: SseState | undefined;
  /** Ends the stream now, resumable; only on an exchange of a session (see `resumable`). */
  declare closeStream: (() => boolean) | undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    httpRequest: unknown,
    principal: unknown,
    scopes: readonly string[] | undefined,
    credentialExpiresAt: number | undefined,
    limits: HttpExchangeLimits,
  ) {
    super();
    this.res = res;
    this.httpRequest = httpRequest;
    this.principal = principal;
    this.scopes = scopes;
    this.credentialExpiresAt = credentialExpiresAt;
    this.limits = limits;
    this.headers = req.headers;
    this.work = undefined;
    this.slot = -1;
    this.watchingClose = false;
    const accept = req.headers.accept;
    // The last Accept's verdict read here rather than through a call: a client sends the same one every time.
    const sse = accept === lastAccept ? lastAcceptsEventStream : acceptsEventStream(accept);
    this.silentSweeps = sse && limits.keepAliveMs > 0 ? 0 : undefined;
    this.sse = undefined;
    this.closeStream = undefined;
  }

  /**
   * Called by the driver every half keep-alive interval: the second sweep an exchange stays silent through
   * means it has been silent for at least half an interval and at most a whole one, and it becomes a stream.
   */
  sweep(): void {
    if (this.silentSweeps === undefined || this.sse?.started) return;
    if (++this.silentSweeps < 2 || this.closed || this.res.headersSent) return;
    this.startStream();
    this.res.write(KEEP_ALIVE);
  }

  /** Where the call's notifications go: they turn the response into an SSE stream. */
  get notify(): (message: JsonRpcNotification | JsonRpcRequest) => boolean {
    return (this.notifier ??= (message) => this.send(message));
  }

  /** Starts the stream now, for a long call (`ctx.openStream`). */
  get openStream(): () => boolean {
    return (this.opener ??= () => this.open());
  }

  /** The client went away before the response was complete. */
  get clientGone(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  /** Nothing more can be written: the client went away or the response is complete. */
  get closed(): boolean {
    // `clientGone` spelled out: read for every answer, and a getter's call costs the interpreter more than its body.
    const res = this.res;
    return (res.destroyed && !res.writableFinished) || res.writableEnded;
  }

  /** True once a notification (or a long silence) turned the response into an SSE stream. */
  get isStreaming(): boolean {
    return this.sse?.started === true;
  }

  /** True once the handler closed the stream (`closeStream`): what it sends from now on is only kept. */
  get detached(): boolean {
    return this.sse?.detached === true;
  }

  /** True while the answer is still to be written as JSON: no stream began, and the client can be written to. */
  get awaitsJson(): boolean {
    // `closed` and `isStreaming` spelled out: read for every answer, and a getter's call costs more than its body.
    const res = this.res;
    return this.sse?.started !== true && !res.writableEnded && !(res.destroyed && !res.writableFinished);
  }

  /** Ends the SSE stream with its last message. */
  end(json: string): void {
    const session = this.sse?.session;
    this.res.end(session ? sessionFrame(session.event(json)) : sseFrame(json));
  }

  /** The last message of a stream the handler closed: kept for the client that resumes it. */
  keep(json: string): void {
    this.sse?.session?.event(json);
  }

  /**
   * Makes this exchange's stream resumable: a priming event first, an id on every event, each kept in the
   * session's store, and `closeStream` for the handler (SSE polling, SEP-1699).
   */
  resumable(stream: SessionStream, retryMs: number): void {
    const sse = this.sseState();
    sse.session = stream;
    sse.retryMs = retryMs;
    this.closeStream = () => {
      if (this.closed || sse.detached) return false;
      if (!sse.started) this.startStream();
      sse.detached = true;
      clearInterval(sse.keepAlive);
      this.res.end();
      return true;
    };
  }

  /** Stops the keep-alive comments; called once the kernel has answered. */
  finish(): void {
    this.silentSweeps = undefined;
    if (this.sse) clearInterval(this.sse.keepAlive);
  }

  /** `aborted` with `gone` spelled out: the call guard asks it of every call, and a getter's call costs more than its body. */
  override get aborted(): boolean {
    return this.abortedWith !== undefined || (this.res.destroyed && !this.res.writableFinished);
  }

  protected get gone(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  protected watch(): void {
    if (this.watchingClose) return;
    this.watchingClose = true;
    if (this.clientGone) this.abort(undefined);
    // Only the response side tells a disconnect: the request stream closed once its body was read.
    else this.res.once('close', () => !this.res.writableFinished && this.abort(undefined));
  }

  private startStream(): void {
    const sse = this.sseState();
    sse.started = true;
    this.res.writeHead(200, SSE_HEADERS);
    if (sse.session) this.res.write(primingFrame(sse.session.primingId, sse.retryMs));
    if (this.limits.keepAliveMs > 0) {
      sse.keepAlive = setInterval(
        () => (this.closed ? this.finish() : this.res.write(KEEP_ALIVE)),
        this.limits.keepAliveMs,
      );
    }
  }

  private sseState(): SseState {
    return (this.sse ??= { started: false, keepAlive: undefined, session: undefined, retryMs: 0, detached: false });
  }

  /** Starts the stream now (`ctx.openStream`); a session's stream opens with its priming event instead. */
  private open(): boolean {
    if (this.sse?.started) return !this.closed && !this.sse.detached;
    const accept = this.headers.accept;
    if (this.closed || this.res.headersSent || typeof accept !== 'string' || !acceptsEventStream(accept)) return false;
    this.startStream();
    if (!this.sse!.session) this.res.write(OPENING_EVENT);
    return true;
  }

  private send(message: JsonRpcNotification | JsonRpcRequest): boolean {
    if (this.sse?.session) return this.sendEvent(this.sse, this.sse.session, message);
    if (this.closed) return false;
    const frame = sseFrame(JSON.stringify(message));
    // The response cap holds for each message: an oversized one is not sent (and its sender told so).
    if (exceedsBytes(frame, this.limits.maxMessageBytes)) return false;
    if (!this.sse?.started) this.startStream();
    this.res.write(frame);
    return true;
  }

  /**
   * A message of a session's stream: numbered and kept, then written while the stream is open. After the
   * handler closed the stream it counts as sent, since the client resumes the stream to get it.
   */
  private sendEvent(sse: SseState, session: SessionStream, message: JsonRpcNotification | JsonRpcRequest): boolean {
    const json = JSON.stringify(message);
    if (exceedsBytes(json, this.limits.maxMessageBytes)) return false;
    const event = session.event(json);
    if (this.closed) return sse.detached;
    if (!sse.started) this.startStream();
    this.res.write(sessionFrame(event));
    return true;
  }
}

/** An exchange's SSE stream, and the session it belongs to, if any. */
interface SseState {
  /** True once the response is a stream (a notification, a long silence, `openStream`). */
  started: boolean;
  keepAlive: NodeJS.Timeout | undefined;
  /** Set in a 2025-era session: its stream's events carry ids and are kept for a client that resumes it. */
  session: SessionStream | undefined;
  /** The session's reconnection delay, sent in the priming event. */
  retryMs: number;
  /** True once the handler closed the stream (`closeStream`): what it sends from now on is only kept. */
  detached: boolean;
}

// A client sends the same Accept on every request: its verdict is kept for the next exchange rather than the
// header scanned again for each (a case-insensitive pattern, run per request).
let lastAccept: string | undefined;
let lastAcceptsEventStream = false;

function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  if (accept !== lastAccept) {
    lastAcceptsEventStream = /\btext\/event-stream\b/i.test(accept);
    lastAccept = accept;
  }
  return lastAcceptsEventStream;
}
