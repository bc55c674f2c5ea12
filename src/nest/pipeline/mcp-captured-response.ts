import { HttpStatus } from '@nestjs/common';

type HeaderValue = string | number | readonly string[];

/**
 * What `context.switchToHttp().getResponse()` is during an MCP call: an object exception filters, guards and
 * interceptors written for HTTP can write to, with the methods of an Express response and of a Fastify reply
 * that they use (`status`/`code`, `json`/`send`/`end`, headers). The MCP driver owns the real HTTP response (one
 * POST may carry a stream of messages), so what they write is recorded instead, and the call's answer is made
 * from it: a docs-style `httpAdapter.reply(ctx.getResponse(), body, status)` or a Fastify-style
 * `reply.status(404).send(body)` reaches the client as the call's error.
 */
export class McpCapturedResponse {
  statusCode: number = HttpStatus.OK;
  /** Express's per-request locals, which some interceptors and filters read or write. */
  readonly locals: Record<string, unknown> = {};
  private readonly headers = new Map<string, HeaderValue>();
  private written = false;
  private payload: unknown;

  /** Whether a filter (or guard, or interceptor) sent a body. */
  get sent(): boolean {
    return this.written;
  }

  get headersSent(): boolean {
    return this.written;
  }

  /** What was sent: an object as given to `json`/`send`, or a string. */
  get body(): unknown {
    return this.payload;
  }

  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  code(code: number): this {
    return this.status(code);
  }

  json(body: unknown): this {
    return this.send(body);
  }

  send(body?: unknown): this {
    this.written = true;
    this.payload = Buffer.isBuffer(body) ? body.toString('utf8') : body;
    return this;
  }

  end(body?: unknown): this {
    return this.send(body);
  }

  header(name: string, value: HeaderValue): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }

  setHeader(name: string, value: HeaderValue): this {
    return this.header(name, value);
  }

  /** Express's `res.set(name, value)` or `res.set({ name: value })`. */
  set(name: string | Record<string, HeaderValue>, value?: HeaderValue): this {
    if (typeof name === 'string') return this.header(name, value ?? '');
    for (const [key, each] of Object.entries(name)) this.header(key, each);
    return this;
  }

  type(contentType: string): this {
    return this.header('content-type', contentType);
  }

  getHeader(name: string): HeaderValue | undefined {
    return this.headers.get(name.toLowerCase());
  }

  get(name: string): HeaderValue | undefined {
    return this.getHeader(name);
  }

  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }

  getHeaders(): Record<string, HeaderValue> {
    return Object.fromEntries(this.headers);
  }

  /** The text the client reads: the body's `message` (Nest's error bodies carry one), else the body itself. */
  message(): string | undefined {
    const body = this.payload;
    if (typeof body === 'string') return body.length > 0 ? body : undefined;
    if (typeof body !== 'object' || body === null) return undefined;
    const message = (body as { message?: unknown }).message;
    if (Array.isArray(message)) return message.join('; ');
    if (typeof message === 'string') return message;
    return undefined;
  }
}
