import type { Readable } from 'node:stream';
import { classifyEra, classifyMessage, classifyStdioRequest, legacyOffError } from '../protocol/classifier.js';
import { replyAnswer } from '../protocol/client-reply.js';
import { ErrorCode } from '../protocol/error-codes.js';
import {
  errorResponse,
  isValidRequestId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import { LEGACY_DEFAULT_TRANSPORT_VERSION } from '../protocol/versions.js';
import type { LegacyLeg } from '../server/legacy/legacy-leg.js';
import type { McpKernel } from '../server/kernel/mcp-kernel.js';
import { exceedsBytes, serializeWithinLimit } from '../server/response-serializer.js';
import { settledWithin } from '../server/util/settled-within.js';
import { isThenable } from '../server/util/when-ready.js';
import { LineSplitter } from './line-splitter.js';
import { StdioExchange } from './stdio-exchange.js';

export interface McpStdioOptions {
  /** Longest message line accepted, in bytes; a longer one gets -32600 and is skipped. Default 4 MiB. */
  maxMessageBytes?: number;
  /** Largest response line; a bigger result becomes -32603, a bigger notification is dropped. Default 4 MiB. */
  maxResponseBytes?: number;
  /** On close, how long calls in flight may run before they are aborted. Default 5 s. */
  drainTimeoutMs?: number;
  /**
   * The caller the process serves. stdio has no OAuth: the credentials are the process's own (its environment),
   * so whoever launches the server decides who it acts for and which `requiredScopes` it may use.
   */
  principal?: unknown;
  scopes?: readonly string[];
  /**
   * Runs around each request the driver dispatches (both eras; not notifications, not replies to the server's
   * requests): `dispatch` answers the request, and what `around` returns is written. A framework layer uses
   * it to run a request inside the per-request context its HTTP pipeline would create (middleware, async-local
   * stores). It must answer every request: a failure it throws is written as -32603. `dispatch` answers at once
   * when the call does; handing that answer straight back keeps the request off the promise path.
   */
  around?: (request: JsonRpcRequest, dispatch: () => StdioAnswer) => StdioAnswer;
}

/** A request's answer: at once when the call was answered synchronously, else a promise of it. */
export type StdioAnswer = JsonRpcResponse | Promise<JsonRpcResponse>;

/** Where lines go: stdout, or anything with a stream's `write`. */
export interface LineSink {
  write(data: string | Uint8Array, callback?: (error?: Error | null) => void): boolean;
}

/**
 * The stdio driver: newline-delimited JSON-RPC on a pipe, over the same kernel as HTTP. One process serves one
 * client, so request ids are the client's handles for cancellation: `notifications/cancelled` aborts the call
 * with that id and nothing more is written for it. Requests run concurrently and are answered as they finish
 * (out of order); progress, log and listen notifications are written as lines while their request runs.
 * Malformed input is answered and skipped, never fatal; no line is buffered past `maxMessageBytes`.
 *
 * Both eras: the first request other than `server/discover` (which a dual-era client sends to probe) picks the
 * era for the connection, as the spec asks of a dual-era stdio server. A request claiming 2026-07-28 in `_meta`
 * pins the modern era; `initialize`, or any request without the claim, pins the 2025 era, whose server→client
 * requests are written to stdout and answered by the client on stdin, where the kernel's 2025-era leg routes
 * each reply to the call that waits for it.
 */
export class McpStdioDriver {
  private readonly maxMessageBytes: number;
  private readonly maxResponseBytes: number;
  private readonly drainTimeoutMs: number;
  private readonly inFlight = new Map<RequestId, StdioExchange>();
  private readonly writeMessage = (message: JsonRpcNotification | JsonRpcRequest): boolean => this.sendMessage(message);
  private output: LineSink | undefined;
  private stopReading: (() => void) | undefined;
  private closed: (() => void) | undefined;
  private pendingWrites = 0;
  private flushed: (() => void) | undefined;
  private closing: Promise<void> | undefined;
  /** The kernel's 2025-era leg; undefined when its option `legacy.mode` is 'off'. */
  private readonly legacy: LegacyLeg | undefined;
  private era: 'modern' | 'legacy' | undefined;
  /** The revision the 2025-era client negotiated with `initialize`. */
  private legacyVersion = LEGACY_DEFAULT_TRANSPORT_VERSION;

  constructor(
    private readonly kernel: McpKernel,
    private readonly options: McpStdioOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? 4 * 1024 * 1024;
    this.maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 5_000;
    this.legacy = kernel.legacy;
  }

  /**
   * Serves the messages read from `input`, writing answers to `output`, until the input ends (the client closed
   * stdin) or `close()` is called; resolves once every call in flight is answered and written.
   */
  serve(input: Readable, output: LineSink): Promise<void> {
    if (this.output) throw new Error('McpStdioDriver serves one connection');
    this.output = output;
    const splitter = new LineSplitter(this.maxMessageBytes);
    const onData = (chunk: Buffer | string) => {
      for (const line of splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) this.receive(line);
    };
    const ended = () => {
      for (const line of splitter.end()) this.receive(line);
      void this.close();
    };
    input.on('data', onData);
    input.once('end', ended);
    // A read error (the pipe broke) ends the connection like EOF.
    input.once('error', ended);
    this.stopReading = () => {
      input.off('data', onData);
      input.off('end', ended);
      input.off('error', ended);
      input.pause();
    };
    return new Promise((resolve) => (this.closed = resolve));
  }

  /**
   * Graceful shutdown: stops reading, ends listen streams with their closing result, lets other calls finish
   * until the drain deadline, then aborts them (their answer is -32603 "Server is shutting down") and waits
   * for what was written to leave. `serve` resolves when it is done.
   */
  close(drainTimeoutMs = this.drainTimeoutMs): Promise<void> {
    return (this.closing ??= this.shutdown(drainTimeoutMs));
  }

  private async shutdown(drainTimeoutMs: number): Promise<void> {
    this.stopReading?.();
    await this.legacy?.close();
    for (const exchange of this.inFlight.values()) {
      const method = exchange.request.method;
      if (method === 'subscriptions/listen' || method === 'events/stream') exchange.abort(undefined);
    }
    if (!(await settledWithin(this.inFlightWork(), drainTimeoutMs))) {
      const reason = new McpError(ErrorCode.InternalError, 'Server is shutting down');
      for (const exchange of this.inFlight.values()) exchange.abort(reason);
      await settledWithin(this.inFlightWork(), 1_000);
    }
    await this.flush();
    this.closed?.();
  }

  /** One line of input: parse, classify, and either answer at once or dispatch. */
  private receive(line: { kind: 'line'; text: string } | { kind: 'oversize' }): void {
    if (line.kind === 'oversize') {
      this.sendResponse(
        errorResponse(
          null,
          ErrorCode.InvalidRequest,
          `Invalid Request: the message exceeds the limit of ${this.maxMessageBytes} bytes`,
        ),
      );
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(line.text);
    } catch {
      this.sendResponse(errorResponse(null, ErrorCode.ParseError, 'Parse error: the line is not valid JSON'));
      return;
    }
    if (this.era === 'legacy' && this.legacy && classifyEra(message, NO_HEADERS).era === 'reply') {
      void this.acceptReply(this.legacy, message as Record<string, unknown>);
      return;
    }
    const verdict = classifyMessage(message);
    if (verdict.kind === 'invalid') this.sendResponse(verdict.response);
    else if (verdict.kind === 'notification') this.notification(verdict.notification);
    else this.request(verdict.request);
  }

  /** `notifications/cancelled` stops the call it names; this revision defines no other client notification. */
  private notification(notification: JsonRpcNotification): void {
    if (notification.method !== 'notifications/cancelled') return;
    const requestId = notification.params?.requestId;
    if (!isValidRequestId(requestId)) return;
    this.inFlight.get(requestId)?.cancel(new McpError(ErrorCode.InternalError, 'Request cancelled'));
  }

  private request(request: JsonRpcRequest): void {
    if (this.closing) {
      this.sendResponse(errorResponse(request.id, ErrorCode.InternalError, 'Server is shutting down'));
      return;
    }
    // Ids are how the client names a call to cancel: two calls in flight under one id would make that ambiguous.
    if (this.inFlight.has(request.id)) {
      this.sendResponse(
        errorResponse(
          request.id,
          ErrorCode.InvalidRequest,
          `Invalid Request: id ${JSON.stringify(request.id)} is already in use by a request in flight`,
        ),
      );
      return;
    }
    const era = this.eraOf(request);
    const refused =
      era === 'modern' ? this.modernRefusal(request) : this.legacy ? null : legacyOffError(request, this.legacyVersion);
    if (refused) {
      this.sendResponse(refused);
      return;
    }
    const exchange = new StdioExchange(request, this.writeMessage, this.options.principal, this.options.scopes);
    const dispatch = (): StdioAnswer =>
      era === 'modern'
        ? this.kernel.dispatchNow(request, exchange)
        : this.legacy!.handle(request, exchange, this.legacyVersion);
    const around = this.options.around;
    let answer: StdioAnswer;
    // Registered while the call runs: a synchronous handler can reach the pipe (a notification), never stdin, so
    // only a call still running after this needs its id held for a cancel or the drain.
    this.inFlight.set(request.id, exchange);
    try {
      answer = around ? around(request, dispatch) : dispatch();
    } catch {
      answer = internalError(request);
    }
    if (!isThenable(answer)) return this.answered(exchange, answer);
    exchange.work = Promise.resolve(answer)
      // Both answer every failure themselves; this only keeps a broken promise from killing the process.
      .catch(() => internalError(request))
      .then((response) => this.answered(exchange, response));
  }

  /** Writes a request's answer, unless the client cancelled it; an `initialize` answered fixes the 2025 revision. */
  private answered(exchange: StdioExchange, response: JsonRpcResponse): void {
    const request = exchange.request;
    this.inFlight.delete(request.id);
    if (request.method === 'initialize' && 'result' in response)
      this.legacyVersion = String(response.result.protocolVersion);
    if (!exchange.isCancelled) this.sendResponse(response);
  }

  /** The era of a request: the connection's once pinned; else this request's, which pins it unless it is a probe. */
  private eraOf(request: JsonRpcRequest): 'modern' | 'legacy' {
    if (this.era) return this.era;
    const era = classifyEra(request, NO_HEADERS).era === 'modern' ? 'modern' : 'legacy';
    if (request.method !== 'server/discover') this.era = era;
    return era;
  }

  /**
   * The stdio ladder of 2026-07-28; an `initialize` on a connection already modern gets -32022 naming the
   * supported revision, as the versioning rules ask of a server that will not serve it.
   */
  private modernRefusal(request: JsonRpcRequest): JsonRpcResponse | null {
    if (request.method === 'initialize' && classifyEra(request, NO_HEADERS).era !== 'modern')
      return legacyOffError(request, this.legacyVersion);
    return classifyStdioRequest(request);
  }

  /** A 2025-era client's answer to a server request; one that reaches no waiting call is answered as over HTTP. */
  private async acceptReply(legacy: LegacyLeg, message: Record<string, unknown>): Promise<void> {
    const answer = replyAnswer(await legacy.acceptReply(message, this.options.principal));
    if ('response' in answer) this.sendResponse(answer.response);
  }

  private inFlightWork(): Array<Promise<unknown>> {
    return [...this.inFlight.values()].map((exchange) => exchange.work!);
  }

  private sendResponse(response: JsonRpcResponse): void {
    const text = serializeWithinLimit(response, this.maxResponseBytes);
    if (typeof text === 'string') this.writeLine(text);
    else this.writeLine(Buffer.concat([...text, NEWLINE]), true);
  }

  /**
   * A notification (or a 2025-era request to the client) too big to send is dropped, as over HTTP; false says so,
   * so a request the client was never sent fails its call at once instead of waiting for a reply.
   */
  private sendMessage(message: JsonRpcNotification | JsonRpcRequest): boolean {
    const text = JSON.stringify(message);
    if (exceedsBytes(text, this.maxResponseBytes)) return false;
    this.writeLine(text);
    return true;
  }

  private writeLine(data: string | Buffer, terminated = false): void {
    const output = this.output;
    if (!output) return;
    this.pendingWrites++;
    output.write(terminated ? data : `${data as string}\n`, () => this.written());
  }

  private written(): void {
    if (--this.pendingWrites === 0) this.flushed?.();
  }

  /** Resolves once every line written so far has left (a pipe may be asynchronous, and the process may exit next). */
  private flush(): Promise<void> {
    if (this.pendingWrites === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.flushed = () => {
        this.flushed = undefined;
        resolve();
      };
    });
  }
}

const NEWLINE = Buffer.from('\n');

function internalError(request: JsonRpcRequest): JsonRpcResponse {
  return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
}
// There is no header layer on stdio: the era rung sees only the body.
const NO_HEADERS = {};
