import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import { AbortableExchange } from '../server/util/abortable-exchange.js';
import type { McpRequestContext } from '../server/mcp-request-context.js';

/**
 * What the kernel knows about one request read from stdin: the caller the process runs for, an abort that
 * follows `notifications/cancelled` and shutdown, and a notification sink that writes to stdout until the
 * request is cancelled (after which the spec wants nothing more sent for it). A pipe has no per-request close to
 * watch: the client cancels one request explicitly, and the driver aborts all at shutdown.
 */
export class StdioExchange extends AbortableExchange implements McpRequestContext {
  /** The kernel's work for this request, once dispatched: what a shutdown drain waits for. */
  work: Promise<unknown> | undefined;
  readonly notify = (message: JsonRpcNotification | JsonRpcRequest): boolean => {
    if (this.cancelled) return false;
    return this.sink(message);
  };
  private cancelled = false;

  constructor(
    readonly request: JsonRpcRequest,
    private readonly sink: (message: JsonRpcNotification | JsonRpcRequest) => boolean,
    readonly principal: unknown,
    readonly scopes: readonly string[] | undefined,
  ) {
    super();
  }

  /** Whether the client cancelled the request: its response and notifications are then not written. */
  get isCancelled(): boolean {
    return this.cancelled;
  }

  /** The client sent `notifications/cancelled` for this request. */
  cancel(reason: unknown): void {
    this.cancelled = true;
    this.abort(reason);
  }
}
