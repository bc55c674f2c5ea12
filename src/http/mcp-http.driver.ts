import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyHttpRequest, classifyMessage } from '../protocol/classifier.js';
import { ErrorCode, httpStatusForErrorCode } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { singleHeader } from '../protocol/header-codec.js';
import { McpError } from '../protocol/mcp-error.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { McpKernel } from '../server/mcp-kernel.js';
import { readBody } from './body-reader.js';
import { HostOriginPolicy, type HostOriginOptions } from './host-origin.policy.js';

export interface McpHttpOptions extends HostOriginOptions {
  /** Largest request body accepted, in bytes (after decompression). Default 4 MiB. */
  maxBodyBytes?: number;
  /** Largest response (one JSON body or the final SSE message), in bytes; a bigger result becomes -32603. Default 4 MiB. */
  maxResponseBytes?: number;
  /** Interval of `:` keep-alive comments on an open SSE stream, so proxies do not drop a quiet one. Default 15 s; 0 disables. */
  sseKeepAliveMs?: number;
  /** On shutdown, how long in-flight calls may run before they are aborted. Default 5 s. */
  drainTimeoutMs?: number;
}

/** A refusal decided before the body is parsed. */
export interface HttpRejection {
  status: number;
  message: string;
  headers?: Record<string, string>;
  /** The JSON-RPC code of the body; by default -32700 for 400 and -32600 otherwise. */
  code?: number;
}

/** Where a transport already read the body: raw bytes (preferred), or a value a framework parsed. */
export type PreparedBody = { raw: Buffer } | { parsed: unknown };

const JSON_HEADERS = { 'content-type': 'application/json' } as const;
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/**
 * The Streamable HTTP driver: enforces the transport rules of 2026-07-28 around the kernel, in this order:
 * Host/Origin (403), verb (405), media type (415), size (413), JSON (-32700), message shape (-32600),
 * notification (202), then the classifier's envelope and header rungs, then the kernel. It works on Node's
 * request and response objects, so Express and Fastify share it; one function writes JSON, one writes SSE.
 */
export class McpHttpDriver {
  readonly maxBodyBytes: number;
  private readonly maxResponseBytes: number;
  private readonly keepAliveMs: number;
  private readonly drainTimeoutMs: number;
  private readonly hostOrigin: HostOriginPolicy;
  /** Exchanges past the preflight, each with the controller that aborts its call. */
  private readonly inFlight = new Map<Promise<void>, AbortController>();
  private closing = false;

  constructor(
    private readonly kernel: McpKernel,
    options: McpHttpOptions = {},
  ) {
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
    this.keepAliveMs = options.sseKeepAliveMs ?? 15_000;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 5_000;
    this.hostOrigin = new HostOriginPolicy(options);
  }

  /**
   * Graceful shutdown: new requests get 503, listen streams get their closing result, in-flight calls may
   * finish until the drain deadline and are then aborted (their clients get -32603 "Server is shutting down").
   */
  async close(drainTimeoutMs = this.drainTimeoutMs): Promise<void> {
    this.closing = true;
    this.kernel.close();
    if (!(await settledWithin([...this.inFlight.keys()], drainTimeoutMs))) {
      const reason = new McpError(ErrorCode.InternalError, 'Server is shutting down');
      for (const controller of this.inFlight.values()) controller.abort(reason);
      await settledWithin([...this.inFlight.keys()], 1_000);
    }
  }

  /** The rungs that need only the method and headers, so a refusal never reads the body. */
  preflight(req: IncomingMessage): HttpRejection | null {
    if (this.closing) {
      return {
        status: 503,
        message: 'Service Unavailable: the server is shutting down',
        code: ErrorCode.InternalError,
        headers: { connection: 'close', 'retry-after': '1' },
      };
    }
    const origin = req.headers.origin;
    const refused = this.hostOrigin.check(req.headers.host, Array.isArray(origin) ? origin[0] : origin);
    if (refused) return { status: 403, message: refused };
    if (req.method !== 'POST') {
      return { status: 405, message: 'Method Not Allowed: this MCP endpoint accepts POST only', headers: { allow: 'POST' } };
    }
    const mediaError = checkMediaType(req.headers['content-type']);
    if (mediaError) return { status: 415, message: mediaError };
    const length = Number(req.headers['content-length']);
    if (Number.isFinite(length) && length > this.maxBodyBytes) {
      return { status: 413, message: `Request body exceeds the limit of ${this.maxBodyBytes} bytes`, headers: { connection: 'close' } };
    }
    return null;
  }

  /** Reads the body under the preflight's rules; answers the request itself and returns null when refused. */
  async readPrepared(req: IncomingMessage, res: ServerResponse): Promise<PreparedBody | null> {
    const rejection = this.preflight(req);
    if (rejection) {
      this.reject(res, rejection);
      return null;
    }
    const read = await readBody(req, this.maxBodyBytes);
    if (!read.ok) {
      this.reject(res, { status: read.status, message: read.message, headers: read.status === 413 ? { connection: 'close' } : undefined });
      return null;
    }
    return { raw: read.body };
  }

  /** Serves one HTTP exchange. `prepared` is the body when a front layer already read (and preflighted) it. */
  async handle(req: IncomingMessage, res: ServerResponse, prepared?: PreparedBody, httpRequest: unknown = req): Promise<void> {
    const body = prepared ?? (await this.readPrepared(req, res));
    if (!body) return;

    let message: unknown;
    if ('raw' in body) {
      try {
        message = JSON.parse(body.raw.toString('utf8'));
      } catch {
        this.writeJson(res, 400, errorResponse(null, ErrorCode.ParseError, 'Parse error: the body is not valid JSON'));
        return;
      }
    } else {
      message = body.parsed;
    }

    const verdict = classifyMessage(message);
    if (verdict.kind === 'invalid') {
      this.writeJson(res, 400, verdict.response);
      return;
    }
    if (verdict.kind === 'notification') {
      // This revision defines no client-to-server notifications over HTTP: accept and drop, unless the client
      // speaks a version this server does not, which it must learn rather than be silently acknowledged.
      const version = singleHeader(req.headers, 'mcp-protocol-version');
      if (version != null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        const data = { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested: version };
        this.writeJson(res, 400, errorResponse(null, ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', data));
        return;
      }
      res.writeHead(202).end();
      return;
    }
    const refused = classifyHttpRequest(verdict.request, req.headers);
    if (refused) {
      this.writeJson(res, httpStatusForErrorCode(refused.error.code), refused);
      return;
    }

    const abort = new AbortController();
    const exchange = this.exchange(verdict.request, req, res, abort, httpRequest);
    this.inFlight.set(exchange, abort);
    try {
      await exchange;
    } finally {
      this.inFlight.delete(exchange);
    }
  }

  private async exchange(
    request: JsonRpcRequest,
    req: IncomingMessage,
    res: ServerResponse,
    abort: AbortController,
    httpRequest: unknown,
  ): Promise<void> {
    // Only the response side tells a disconnect: the request stream closed long ago, once its body was read.
    let clientGone = false;
    let keepAlive: NodeJS.Timeout | undefined;
    let silence: NodeJS.Timeout | undefined;
    const stopTimers = () => {
      clearInterval(keepAlive);
      clearTimeout(silence);
    };
    const onClose = () => {
      stopTimers();
      if (res.writableFinished) return;
      clientGone = true;
      abort.abort();
    };
    res.on('close', onClose);
    let streaming = false;
    const startStream = () => {
      streaming = true;
      res.writeHead(200, SSE_HEADERS);
      if (this.keepAliveMs > 0) keepAlive = setInterval(() => res.write(': keep-alive\n\n'), this.keepAliveMs);
    };
    const notify = (notification: JsonRpcNotification) => {
      if (clientGone || res.writableEnded) return;
      const frame = sseFrame(notification);
      // The response cap holds for each message: an oversized log or progress notification is dropped.
      if (frame.length > this.maxResponseBytes) return;
      if (!streaming) startStream();
      res.write(frame);
    };
    // A call that stays silent must not look dead to a proxy's idle timeout: after one keep-alive interval
    // without a result it becomes an SSE stream of keep-alive comments, if the client accepts SSE.
    if (this.keepAliveMs > 0 && /\btext\/event-stream\b/i.test(String(req.headers.accept ?? ''))) {
      silence = setTimeout(() => {
        if (streaming || clientGone || res.headersSent) return;
        startStream();
        res.write(': keep-alive\n\n');
      }, this.keepAliveMs);
    }

    const response = await this.kernel.handleRequest(request, { headers: req.headers, signal: abort.signal, notify, httpRequest });
    stopTimers();
    res.off('close', onClose);
    if (!response || clientGone || res.writableEnded) return;
    if (streaming) {
      res.end(`event: message\ndata: ${this.serialize(response)}\n\n`);
      return;
    }
    const status = 'error' in response ? httpStatusForErrorCode(response.error.code) : 200;
    this.writeJson(res, status, response);
  }

  reject(res: ServerResponse, rejection: HttpRejection): void {
    const code = rejection.code ?? (rejection.status === 400 ? ErrorCode.ParseError : ErrorCode.InvalidRequest);
    this.writeJson(res, rejection.status, errorResponse(null, code, rejection.message), rejection.headers);
  }

  private writeJson(res: ServerResponse, status: number, body: JsonRpcResponse, headers?: Record<string, string>): void {
    if (res.headersSent || res.writableEnded) return;
    const text = this.serialize(body);
    res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  /** The response as JSON text; a result that cannot be sent (a cycle, a BigInt, too deep, too big) becomes -32603. */
  private serialize(body: JsonRpcResponse): string {
    const id = 'id' in body ? body.id : null;
    let text: string;
    try {
      text = JSON.stringify(body);
    } catch {
      // A handler result that cannot be serialized is the server's fault, not the client's.
      return JSON.stringify(errorResponse(id, ErrorCode.InternalError, 'Internal error: the result could not be serialized'));
    }
    if (text.length > this.maxResponseBytes / 3 && Buffer.byteLength(text) > this.maxResponseBytes) {
      const message = `Internal error: the result is larger than the response limit of ${this.maxResponseBytes} bytes`;
      return JSON.stringify(errorResponse(id, ErrorCode.InternalError, message));
    }
    return text;
  }
}

function sseFrame(message: JsonRpcNotification): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** Whether all the promises settled within `ms`. */
async function settledWithin(promises: Array<Promise<unknown>>, ms: number): Promise<boolean> {
  if (promises.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = Promise.allSettled(promises).then(() => true as const);
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Parses the media type properly (not a substring match): JSON, and UTF-8 if a charset is named. */
function checkMediaType(header: string | undefined): string | null {
  if (!header) return 'Unsupported Media Type: Content-Type must be application/json';
  const [type, ...params] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') {
    return `Unsupported Media Type: Content-Type must be application/json, got "${type.trim()}"`;
  }
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim().toLowerCase());
    if (name === 'charset' && value.replace(/"/g, '') !== 'utf-8') return `Unsupported charset "${value}": use utf-8`;
  }
  return null;
}
