import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderBag } from '../protocol/header-codec.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { McpRequestContext } from '../server/mcp-kernel.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

export function sseFrame(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * What the kernel knows about one HTTP exchange: its headers, an abort signal that follows the client, and a
 * notification sink that upgrades the response to an SSE stream on the first notification. The signal's
 * AbortController is created only when a handler first reads it (creating one costs more than the rest of
 * a `tools/call`), and until then a client that goes away is seen on the response itself.
 */
export class HttpExchange implements McpRequestContext {
  readonly headers: HeaderBag;
  readonly notify = (notification: JsonRpcNotification): void => this.send(notification);
  private controller: AbortController | undefined;
  private streaming = false;

  constructor(
    req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly httpRequest: unknown,
    readonly principal?: unknown,
    readonly scopes?: readonly string[],
  ) {
    this.headers = req.headers;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      if (this.clientGone) controller.abort();
      else this.res.once('close', () => !this.res.writableFinished && controller.abort());
    }
    return this.controller.signal;
  }

  /** The client went away before the response was complete. */
  get clientGone(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  /** Nothing more can be written: the client went away or the response is complete. */
  get closed(): boolean {
    return this.clientGone || this.res.writableEnded;
  }

  /** True once a notification turned the response into an SSE stream. */
  get isStreaming(): boolean {
    return this.streaming;
  }

  private send(notification: JsonRpcNotification): void {
    if (this.closed) return;
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, SSE_HEADERS);
    }
    this.res.write(sseFrame(notification));
  }
}
