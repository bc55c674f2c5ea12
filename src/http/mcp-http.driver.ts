import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyEra,
  classifyHttpRequest,
  classifyMessage,
  legacyOffError,
  unsupportedVersionError,
} from '../protocol/classifier.js';
import { replyAnswer } from '../protocol/client-reply.js';
import { ErrorCode, httpStatusForErrorCode } from '../protocol/error-codes.js';
import { echoableId, errorResponse, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { singleHeader } from '../protocol/header-codec.js';
import { McpError } from '../protocol/mcp-error.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { LegacyLeg } from '../server/legacy/legacy-leg.js';
import type { McpKernel } from '../server/mcp-kernel.js';
import { byteLength, serializeWithinLimit } from '../server/response-serializer.js';
import { settledWithin } from '../server/settled-within.js';
import { SweptSet } from '../server/swept-set.js';
import { readBody } from './body-reader.js';
import { CorsPolicy, type McpCorsOptions } from './cors.policy.js';
import { HttpExchange, sseFrame, type HttpExchangeLimits } from './http-exchange.js';
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
  /** Answer CORS preflights and mark responses readable for browser clients from the allowed origins. Default off. */
  cors?: boolean | McpCorsOptions;
  /** Establishes the caller of every POST before it is classified; without it requests are anonymous. */
  authenticator?: McpHttpAuthenticator;
}

/**
 * The caller a request was authenticated as (and when its credential expires, in epoch ms: its listen streams
 * end then), or the refusal to send instead of processing it.
 */
export type HttpAuthentication =
  | { ok: true; principal: unknown; scopes: readonly string[]; credentialExpiresAt?: number }
  | { ok: false; status: number; code: number; message: string; headers?: Record<string, string> };

/** The authentication step of the driver (an OAuth resource server, for one). */
export interface McpHttpAuthenticator {
  authenticate(req: IncomingMessage, httpRequest: unknown): Promise<HttpAuthentication>;
  /** The headers of a 403 for a request that lacks scopes: the step-up challenge. */
  insufficientScopeHeaders(requiredScopes: readonly string[]): Record<string, string>;
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

const SHUTTING_DOWN: HttpRejection = {
  status: 503,
  message: 'Service Unavailable: the server is shutting down',
  code: ErrorCode.InternalError,
  headers: { connection: 'close', 'retry-after': '1' },
};

/**
 * The Streamable HTTP driver: enforces the transport rules of 2026-07-28 around the kernel, in this order:
 * Host/Origin (403), verb (405), media type (415), size (413), JSON (-32700), authentication (401), message
 * shape (-32600), notification (202), then the classifier's envelope and header rungs, then the kernel. It works on Node's
 * request and response objects, so Express and Fastify share it; one function writes JSON, one writes SSE.
 */
export class McpHttpDriver {
  readonly maxBodyBytes: number;
  private readonly maxResponseBytes: number;
  private readonly keepAliveMs: number;
  private readonly drainTimeoutMs: number;
  private readonly hostOrigin: HostOriginPolicy;
  private readonly authenticator?: McpHttpAuthenticator;
  private readonly cors?: CorsPolicy;
  private readonly exchangeLimits: HttpExchangeLimits;
  /** The kernel's 2025-era leg; undefined with `legacy: 'off'`. */
  readonly legacy: LegacyLeg | undefined;
  /**
   * Requests handed to the kernel, each with the exchange that can abort it: what close() drains. Swept every
   * half keep-alive interval for the silent-call upgrade (one timer for all, which never holds the process).
   */
  private readonly inFlight: SweptSet<HttpExchange>;
  private closing = false;

  constructor(
    private readonly kernel: McpKernel,
    options: McpHttpOptions = {},
  ) {
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
    this.keepAliveMs = options.sseKeepAliveMs ?? 15_000;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 5_000;
    this.exchangeLimits = { keepAliveMs: this.keepAliveMs, maxMessageBytes: this.maxResponseBytes };
    this.inFlight = new SweptSet(
      this.keepAliveMs / 2,
      (exchanges) => exchanges.forEach((exchange) => exchange.sweep()),
      false,
    );
    this.hostOrigin = new HostOriginPolicy(options);
    this.authenticator = options.authenticator;
    this.legacy = kernel.legacy;
    if (options.cors)
      this.cors = new CorsPolicy(
        (origin) => this.hostOrigin.originAllowed(origin),
        options.cors === true ? {} : options.cors,
      );
  }

  /** Whether the `cors` option is on: without it, a front layer need not call `applyCors`. */
  get corsEnabled(): boolean {
    return this.cors !== undefined;
  }

  /** Adds CORS headers when enabled; answers a preflight itself and returns true. Runs before any other rule. */
  applyCors(req: IncomingMessage, res: ServerResponse): boolean {
    return this.cors?.apply(req, res) ?? false;
  }

  /**
   * Graceful shutdown: new requests get 503, listen streams get their closing result, in-flight calls may
   * finish until the drain deadline and are then aborted (their clients get -32603 "Server is shutting down").
   */
  async close(drainTimeoutMs = this.drainTimeoutMs): Promise<void> {
    this.closing = true;
    this.kernel.close();
    if (!(await settledWithin(this.inFlightWork(), drainTimeoutMs))) {
      const reason = new McpError(ErrorCode.InternalError, 'Server is shutting down');
      for (const exchange of this.inFlight.values()) exchange.abort(reason);
      await settledWithin(this.inFlightWork(), 1_000);
    }
  }

  /** The rungs that need only the method and headers, so a refusal never reads the body. */
  preflight(req: IncomingMessage): HttpRejection | null {
    if (this.closing) return SHUTTING_DOWN;
    const origin = req.headers.origin;
    const refused = this.hostOrigin.check(req.headers.host, Array.isArray(origin) ? origin[0] : origin);
    if (refused) return { status: 403, message: refused };
    if (req.method !== 'POST') {
      // Both eras: 2026-07-28 has no GET stream, and a stateless 2025 server offers none (a 405, not a 404:
      // clients treat only a 405 as "no standalone stream here").
      const message =
        'Method Not Allowed: this MCP endpoint accepts POST only (no standalone stream, no session to delete)';
      return { status: 405, message, headers: { allow: 'POST' }, code: ErrorCode.ServerError };
    }
    const mediaError = checkMediaType(req.headers['content-type']);
    if (mediaError) return { status: 415, message: mediaError };
    const length = Number(req.headers['content-length']);
    if (Number.isFinite(length) && length > this.maxBodyBytes) {
      return {
        status: 413,
        message: `Request body exceeds the limit of ${this.maxBodyBytes} bytes`,
        headers: { connection: 'close' },
      };
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
      this.reject(res, {
        status: read.status,
        message: read.message,
        headers: read.status === 413 ? { connection: 'close' } : undefined,
      });
      return null;
    }
    return { raw: read.body };
  }

  /** Serves one HTTP exchange. `prepared` is the body when a front layer already read (and preflighted) it. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    prepared?: PreparedBody,
    httpRequest: unknown = req,
  ): Promise<void> {
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

    // After the transport rungs and the body (a Nest guard that sets request.user runs after the body layer),
    // before anything is dispatched, so every message, notifications included, needs a caller.
    const auth = this.authenticator && (await this.authenticate(this.authenticator, req, httpRequest));
    if (auth && !auth.ok) {
      const refusal = await this.kernel.observeRefusal(
        message,
        errorResponse(echoableId(message), auth.code, auth.message),
        httpRequest,
      );
      this.writeJson(res, auth.status, refusal, auth.headers);
      return;
    }

    const era = classifyEra(message, req.headers);
    if (era.era === 'refused') {
      this.writeJson(res, era.status, era.response);
      return;
    }
    if (era.era !== 'modern' && !(era.era === 'reply' && !this.legacy)) {
      if (!this.legacy) this.writeJson(res, 400, legacyOffError(message, era.version));
      else if (era.era === 'reply')
        await this.acceptReply(this.legacy, message as Record<string, unknown>, res, auth?.principal);
      else await this.serveLegacy(this.legacy, era.version, message, req, res, httpRequest, auth);
      return;
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
        this.writeJson(res, 400, unsupportedVersionError(null, version));
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

    const exchange = this.admit(req, res, httpRequest, auth);
    if (!exchange) return;
    const response = await this.run(exchange, this.kernel.dispatch(verdict.request, exchange));
    if (!response) return;
    const status = 'error' in response ? httpStatusForErrorCode(response.error.code) : 200;
    const challenge =
      'error' in response && response.error.code === ErrorCode.InsufficientScope
        ? this.authenticator?.insufficientScopeHeaders(requiredScopesOf(response.error.data))
        : undefined;
    this.writeJson(res, status, response, challenge);
  }

  /**
   * A 2025-era message: a notification is acknowledged; a request is served by the legacy leg and answered 200
   * (JSON, or SSE once it notifies or asks the client something), its JSON-RPC errors in-band as 2025 clients
   * expect. No `Mcp-Session-Id` is read or written.
   */
  private async serveLegacy(
    legacy: LegacyLeg,
    version: string,
    message: unknown,
    req: IncomingMessage,
    res: ServerResponse,
    httpRequest: unknown,
    auth: HttpAuthentication | undefined,
  ): Promise<void> {
    const verdict = classifyMessage(message);
    if (verdict.kind === 'invalid') {
      this.writeJson(res, 400, verdict.response);
      return;
    }
    if (verdict.kind === 'notification') {
      res.writeHead(202).end();
      return;
    }
    const exchange = this.admit(req, res, httpRequest, auth);
    if (!exchange) return;
    const response = await this.run(exchange, legacy.handle(verdict.request, exchange, version));
    if (response) this.writeJson(res, 200, response);
  }

  /** A client's answer to a server request: 202 once routed to the call that waits for it, else a 4xx. */
  private async acceptReply(
    legacy: LegacyLeg,
    message: Record<string, unknown>,
    res: ServerResponse,
    principal: unknown,
  ): Promise<void> {
    let outcome;
    try {
      outcome = await legacy.acceptReply(message, principal);
    } catch (error) {
      // A shared reply router that cannot be reached (Redis down): the reply was not routed, and the client may
      // send it again; the server's fault, so a 503 naming it rather than a bare 500.
      const text = error instanceof McpError ? error.message : 'Internal error: the reply could not be routed';
      this.reject(res, { status: 503, code: ErrorCode.InternalError, message: text });
      return;
    }
    const answer = replyAnswer(outcome);
    if ('response' in answer) this.writeJson(res, answer.status, answer.response);
    else res.writeHead(202).end();
  }

  /** The exchange of a request about to be dispatched, or null (and a 503 sent) when the server is closing. */
  private admit(
    req: IncomingMessage,
    res: ServerResponse,
    httpRequest: unknown,
    auth: HttpAuthentication | undefined,
  ): HttpExchange | null {
    // A request admitted before close() may have spent the drain reading its body or authenticating: the drain
    // waits only for calls it can see, so one that starts now would run while the server goes away.
    if (this.closing) {
      this.reject(res, SHUTTING_DOWN);
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
      this.exchangeLimits,
    );
  }

  /**
   * Waits for the dispatched work while the drain can see it. Returns the response when it is still to be
   * written as JSON; an SSE stream is ended with it here, and a closed exchange gets nothing.
   */
  private async run(exchange: HttpExchange, work: Promise<JsonRpcResponse>): Promise<JsonRpcResponse | undefined> {
    exchange.work = work;
    this.inFlight.add(exchange);
    let response: JsonRpcResponse | undefined;
    try {
      response = await work;
    } finally {
      this.inFlight.delete(exchange);
      exchange.finish();
    }
    if (!response || exchange.closed) return undefined;
    if (exchange.isStreaming) {
      exchange.end(sseFrame(this.serializeText(response)));
      return undefined;
    }
    return response;
  }

  private inFlightWork(): Array<Promise<unknown>> {
    return this.inFlight.values().map((exchange) => exchange.work!);
  }

  /** An authenticator that throws (a `fromRequest` or session lookup) is the server's fault: 500, never a rejection. */
  private async authenticate(
    authenticator: McpHttpAuthenticator,
    req: IncomingMessage,
    httpRequest: unknown,
  ): Promise<HttpAuthentication> {
    try {
      return await authenticator.authenticate(req, httpRequest);
    } catch {
      return {
        ok: false,
        status: 500,
        code: ErrorCode.InternalError,
        message: 'Internal error: the caller could not be authenticated',
      };
    }
  }

  reject(res: ServerResponse, rejection: HttpRejection): void {
    const code = rejection.code ?? (rejection.status === 400 ? ErrorCode.ParseError : ErrorCode.InvalidRequest);
    this.writeJson(res, rejection.status, errorResponse(null, code, rejection.message), rejection.headers);
  }

  private writeJson(
    res: ServerResponse,
    status: number,
    body: JsonRpcResponse,
    headers?: Record<string, string>,
  ): void {
    if (res.headersSent || res.writableEnded) return;
    const text = this.serialize(body);
    if (typeof text === 'string') {
      res.writeHead(status, jsonHeaders(Buffer.byteLength(text), headers));
      res.end(text);
      return;
    }
    res.writeHead(status, jsonHeaders(byteLength(text), headers));
    // Corked, the chunks leave in one write and the pre-serialized page is never copied.
    res.cork();
    for (const chunk of text) res.write(chunk);
    res.end();
    res.uncork();
  }

  private serialize(body: JsonRpcResponse): string | Buffer[] {
    return serializeWithinLimit(body, this.maxResponseBytes);
  }

  /** The same, as one string: the final message of an SSE stream. */
  private serializeText(body: JsonRpcResponse): string {
    const text = this.serialize(body);
    return typeof text === 'string' ? text : Buffer.concat(text).toString('utf8');
  }
}

// A literal per response rather than spreads: this runs for every answer.
function jsonHeaders(
  contentLength: number,
  extra: Record<string, string> | undefined,
): Record<string, string | number> {
  const headers = { 'content-type': 'application/json', 'content-length': contentLength };
  return extra ? Object.assign(headers, extra) : headers;
}

/** The scopes an InsufficientScope error names; a handler may have thrown one with any data. */
function requiredScopesOf(data: unknown): string[] {
  const scopes = (data as { requiredScopes?: unknown } | undefined)?.requiredScopes;
  return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [];
}

/** Parses the media type properly (not a substring match): JSON, and UTF-8 if a charset is named. */
function checkMediaType(header: string | undefined): string | null {
  if (header === 'application/json') return null;
  if (!header) return 'Unsupported Media Type: Content-Type must be application/json';
  const [type, ...params] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') {
    return `Unsupported Media Type: Content-Type must be application/json, got "${type.trim()}"`;
  }
  for (const param of params) {
    // A parameter may come without a value (`; charset`).
    const [name, value = ''] = param.split('=').map((s) => s.trim().toLowerCase());
    if (name === 'charset' && value.replace(/"/g, '') !== 'utf-8') return `Unsupported charset "${value}": use utf-8`;
  }
  return null;
}
