import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { McpRequestContext } from '../server/mcp-kernel.js';

/**
 * What the kernel knows about one request read from stdin: the caller the process runs for, an abort that
 * follows `notifications/cancelled` and shutdown, and a notification sink that writes to stdout until the
 * request is cancelled (after which the spec wants nothing more sent for it). The AbortController is created
 * only when a handler reads the signal; the call guard and listen streams subscribe through `onAbort`.
 */
export class StdioExchange implements McpRequestContext {
  /** The kernel's work for this request, once dispatched: what a shutdown drain waits for. */
  work: Promise<unknown> | undefined;
  readonly notify = (notification: JsonRpcNotification): void => {
    if (!this.cancelled) this.sink(notification);
  };
  private controller: AbortController | undefined;
  private abortListeners: Array<(reason: unknown) => void> | undefined;
  private abortedWith: { reason: unknown } | undefined;
  private cancelled = false;

  constructor(
    readonly request: JsonRpcRequest,
    private readonly sink: (notification: JsonRpcNotification) => void,
    readonly principal: unknown,
    readonly scopes: readonly string[] | undefined,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.abortedWith) {
      listener(this.abortedWith.reason);
      return () => undefined;
    }
    (this.abortListeners ??= []).push(listener);
    return () => {
      const at = this.abortListeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.abortListeners!.splice(at, 1);
    };
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

  /** Stops the call (shutdown); its handler's signal fires with `reason` and its response is still written. */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    const listeners = this.abortListeners;
    this.abortListeners = undefined;
    for (const listener of listeners ?? []) listener(reason);
  }
}
