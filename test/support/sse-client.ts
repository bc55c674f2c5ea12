import type { INestApplication } from '@nestjs/common';
import { mcpHeaders, sseMessages } from '../../src/testing/index.js';

/** Starts the app on an ephemeral loopback port and returns its MCP URL, for tests that read streams live. */
export async function listenOnLoopback(app: INestApplication, path = '/mcp'): Promise<string> {
  // A test client of nestjs-mcp/testing may have started the listener on loopback already.
  if (!app.getHttpServer().listening) await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return `http://127.0.0.1:${address.port}${path}`;
}

/** Closes an app started by `listenOnLoopback` without waiting for idle keep-alive connections to time out. */
export async function closeListening(app: INestApplication): Promise<void> {
  app.getHttpServer().closeAllConnections();
  await app.close();
}

/**
 * A POST whose response is read frame by frame while it is still open (supertest waits for the end), so a
 * test can act between frames and close the stream from the client side like a real client would.
 */
export class LiveResponse {
  private readonly frames: Array<Record<string, unknown>> = [];
  private readonly waiters: Array<() => void> = [];
  private buffer = '';
  private done = false;
  readonly finished: Promise<void>;

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    body: ReadableStream<Uint8Array>,
    private readonly abort: AbortController,
  ) {
    this.finished = this.pump(body);
  }

  /** `headers` override the conforming 2026-07-28 ones; an undefined value leaves that header out. */
  static async post(
    url: string,
    body: Record<string, unknown>,
    headers: Record<string, string | undefined> = {},
  ): Promise<LiveResponse> {
    const abort = new AbortController();
    const merged = Object.entries({ ...mcpHeaders(body), ...headers }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    );
    const res = await fetch(url, { method: 'POST', headers: merged, body: JSON.stringify(body), signal: abort.signal });
    return new LiveResponse(res.status, res.headers, res.body!, abort);
  }

  /** The next JSON message on the stream; rejects when the stream ends without one. */
  async next(): Promise<Record<string, unknown>> {
    while (this.frames.length === 0) {
      if (this.done) throw new Error('the stream ended');
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.frames.shift()!;
  }

  /** Every message until the server ends the stream. */
  async rest(): Promise<Array<Record<string, unknown>>> {
    await this.finished;
    return this.frames.splice(0);
  }

  /** Closes the stream from the client side. */
  close(): void {
    this.abort.abort();
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          this.frames.push(...sseMessages(this.buffer.slice(0, end)));
          this.buffer = this.buffer.slice(end + 2);
        }
        this.wake();
      }
    } catch {
      // aborted by close()
    } finally {
      this.done = true;
      this.wake();
    }
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

export interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** An SSE response read event by event (ids, retry and data as sent), while it is still open. */
export class EventStream {
  private readonly events: SseEvent[] = [];
  private readonly waiters: Array<() => void> = [];
  private buffer = '';
  private ended = false;
  readonly finished: Promise<void>;

  constructor(
    readonly res: Response,
    private readonly abort: AbortController,
  ) {
    this.finished = this.pump();
  }

  static async open(url: string, init: RequestInit & { headers: Record<string, string> }): Promise<EventStream> {
    const abort = new AbortController();
    const res = await fetch(url, { ...init, signal: abort.signal });
    return new EventStream(res, abort);
  }

  async next(): Promise<SseEvent> {
    while (this.events.length === 0) {
      if (this.ended) throw new Error('the stream ended');
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.events.shift()!;
  }

  /** The next event that carries a message, parsed. */
  async message(): Promise<Record<string, unknown>> {
    for (;;) {
      const event = await this.next();
      if (event.data !== '') return JSON.parse(event.data) as Record<string, unknown>;
    }
  }

  close(): void {
    this.abort.abort();
  }

  private async pump(): Promise<void> {
    const reader = this.res.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          const event: SseEvent = { data: '' };
          let fields = 0;
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon === 0) continue;
            const name = line.slice(0, colon);
            const value = line.slice(colon + 1).replace(/^ /, '');
            fields++;
            if (name === 'id') event.id = value;
            else if (name === 'retry') event.retry = Number(value);
            else if (name === 'data') event.data = value;
          }
          if (fields > 0) this.events.push(event);
          this.waiters.splice(0).forEach((wake) => wake());
        }
      }
    } catch {
      // aborted by the test
    } finally {
      this.ended = true;
      this.waiters.splice(0).forEach((wake) => wake());
    }
  }
}
