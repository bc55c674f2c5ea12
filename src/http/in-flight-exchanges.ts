import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import { settledWithin } from '../server/util/settled-within.js';
import { SweptSet } from '../server/util/swept-set.js';
import { HttpExchange, type HttpExchangeLimits } from './http-exchange.js';
import type { JsonWriter } from './json-writer.js';
import type { HttpAuthentication, HttpRejection } from './mcp-http-options.js';

export const SHUTTING_DOWN: HttpRejection = {
  status: 503,
  message: 'Service Unavailable: the server is shutting down',
  code: ErrorCode.InternalError,
  headers: { connection: 'close', 'retry-after': '1' },
};

/**
 * The requests handed to the kernel, each with the exchange that can abort it: what a shutdown drains. Swept
 * every half keep-alive interval for the silent-call upgrade (one timer for all, which never holds the process).
 */
export class InFlightExchanges {
  private readonly exchanges: SweptSet<HttpExchange>;
  private closing = false;

  constructor(
    private readonly limits: HttpExchangeLimits,
    private readonly writer: JsonWriter,
  ) {
    this.exchanges = new SweptSet(
      limits.keepAliveMs / 2,
      (exchanges) => exchanges.forEach((exchange) => exchange.sweep()),
      false,
    );
  }

  /** True once shutdown began: new requests get 503. */
  get isClosing(): boolean {
    return this.closing;
  }

  /** The exchange of a request about to be dispatched, or null (and a 503 sent) when the server is closing. */
  admit(
    req: IncomingMessage,
    res: ServerResponse,
    httpRequest: unknown,
    auth: HttpAuthentication | undefined,
  ): HttpExchange | null {
    // A request admitted before close() may have spent the drain reading its body or authenticating: the drain
    // waits only for calls it can see, so one that starts now would run while the server goes away.
    if (this.closing) {
      this.writer.reject(res, SHUTTING_DOWN);
      return null;
    }
    const granted = auth?.ok ? auth : undefined;
    return new HttpExchange(
      req,
      res,
      httpRequest,
      granted?.principal,
      granted?.scopes,
      granted?.credentialExpiresAt,
      this.limits,
    );
  }

  /**
   * Waits for the dispatched work while the drain can see it. Returns the response when it is still to be
   * written as JSON; an SSE stream is ended with it here, and a closed exchange gets nothing.
   */
  run(exchange: HttpExchange, work: Promise<JsonRpcResponse>): Promise<JsonRpcResponse | undefined> {
    exchange.work = work;
    this.exchanges.add(exchange);
    const settled = () => {
      this.exchanges.delete(exchange);
      exchange.finish();
    };
    // A continuation, not an async function: the driver awaits this once, and a synchronous call is then one hop.
    return work.then(
      (response) => {
        settled();
        return this.toWrite(exchange, response);
      },
      (error: unknown) => {
        settled();
        throw error;
      },
    );
  }

  /** `run` for a call the kernel answered synchronously: nothing to wait for, so nothing to track. */
  answered(exchange: HttpExchange, response: JsonRpcResponse): JsonRpcResponse | undefined {
    exchange.finish();
    return exchange.awaitsJson ? response : this.toWrite(exchange, response);
  }

  private toWrite(exchange: HttpExchange, response: JsonRpcResponse | undefined): JsonRpcResponse | undefined {
    if (!response || exchange.awaitsJson) return response;
    if (exchange.closed) {
      if (exchange.detached) exchange.keep(this.writer.text(response));
      return undefined;
    }
    if (exchange.isStreaming) {
      exchange.end(this.writer.text(response));
      return undefined;
    }
    return response;
  }

  /** Refuses new requests from now on. */
  close(): void {
    this.closing = true;
  }

  /** Lets the calls in flight finish until the deadline, then aborts them with -32603 "Server is shutting down". */
  async drain(timeoutMs: number): Promise<void> {
    if (await settledWithin(this.work(), timeoutMs)) return;
    const reason = new McpError(ErrorCode.InternalError, 'Server is shutting down');
    for (const exchange of this.exchanges.values()) exchange.abort(reason);
    await settledWithin(this.work(), 1_000);
  }

  private work(): Array<Promise<unknown>> {
    return this.exchanges.values().map((exchange) => exchange.work!);
  }
}
