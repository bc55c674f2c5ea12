import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyEra,
  classifyHttpRequest,
  classifyMessage,
  legacyOffError,
  unsupportedVersionError,
} from '../protocol/classifier.js';
import { ErrorCode, httpHeadersForError, httpStatusForError } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { singleHeader } from '../protocol/header-codec.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { isThenable, whenReady } from '../server/util/when-ready.js';
import type { McpKernel } from '../server/kernel/mcp-kernel.js';
import { discardRest, dropUnread, readBody, rejectionOf, type BodyRefusal } from './body-reader.js';
import { CorsPolicy } from './policy/cors-policy.js';
import { HostOriginPolicy } from './policy/host-origin-policy.js';
import { InFlightExchanges, SHUTTING_DOWN } from './in-flight-exchanges.js';
import { isInProcessRequest } from './in-process-request.js';
import { JsonWriter } from './json-writer.js';
import { CallerAuthentication } from './caller-authentication.js';
import { LegacyHttp } from './legacy-http.js';
import type { SessionHttp } from './session-http.js';
import { checkMediaType } from './policy/media-type.js';
import type {
  HttpAuthentication,
  HttpAuthenticationRefusal,
  HttpRejection,
  McpHttpOptions,
  PreparedBody,
} from './mcp-http-options.js';

/** What `handle` returns for a request served with nothing left to wait for: shared, since it is settled. */
const SERVED: Promise<void> = Promise.resolve();
/** An admission without an authentication of its own: shared, since nothing writes to it. */
const ADMITTED: PreparedBody = Object.freeze({});
/** A route tool's in-process request that reached the MCP endpoint: a call must never loop back into MCP. */
const IN_PROCESS_LOOP: HttpRejection = {
  status: 508,
  message: 'Loop Detected: a route tool cannot call the MCP endpoint',
  code: ErrorCode.InvalidRequest,
};

/**
 * The Streamable HTTP driver: enforces the transport rules of 2026-07-28 around the kernel, in this order:
 * Host/Origin (403), verb (405), media type (415), authentication (401), size (413 declared, then while read),
 * JSON (-32700), message shape (-32600), notification (202), then the classifier's envelope and header rungs,
 * then the kernel. Authentication always comes before the body, so an unauthenticated client costs no body read
 * or inflation: an authenticator that needs only the headers (a bearer token) runs in `admit`, before the
 * framework's route; one that reads what the app's guards set runs in `handle`, after them, and the body is then
 * read there too. A POST the classifier places in the 2025 era goes to `LegacyHttp` instead. It works on Node's
 * request and response objects, so Express and Fastify share it; one function writes JSON, one writes SSE.
 */
export class McpHttpDriver {
  private bodyLimit: number;
  private readonly bodyTimeoutMs: number;
  private readonly drainTimeoutMs: number;
  private readonly hostOrigin: HostOriginPolicy;
  private readonly auth: CallerAuthentication;
  private readonly cors?: CorsPolicy;
  private readonly writer: JsonWriter;
  private readonly inFlight: InFlightExchanges;
  /** The 2025-era leg over HTTP; undefined when `legacy.mode` is 'off'. */
  private readonly legacyHttp: LegacyHttp | undefined;
  /** Its sessions, GET streams and DELETE with `legacy.mode: 'stateful'`. */
  private readonly sessions: SessionHttp | undefined;

  constructor(
    private readonly kernel: McpKernel,
    options: McpHttpOptions = {},
  ) {
    this.bodyLimit = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
    const maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 5_000;
    this.writer = new JsonWriter(maxResponseBytes);
    this.inFlight = new InFlightExchanges(
      { keepAliveMs: options.sseKeepAliveMs ?? 15_000, maxMessageBytes: maxResponseBytes },
      this.writer,
    );
    this.hostOrigin = new HostOriginPolicy(options);
    this.auth = new CallerAuthentication(kernel, this.writer, options.authenticator);
    this.legacyHttp =
      kernel.legacy &&
      new LegacyHttp(
        kernel.legacy,
        this.inFlight,
        this.writer,
        (response) => this.auth.scopeChallenge(response),
        options.sseKeepAliveMs ?? 15_000,
      );
    this.sessions = this.legacyHttp?.sessions;
    if (options.cors)
      this.cors = new CorsPolicy(
        (origin) => this.hostOrigin.originAllowed(origin),
        options.cors === true ? {} : options.cors,
      );
  }

  /** Largest request body accepted, in bytes (after decompression). */
  get maxBodyBytes(): number {
    return this.bodyLimit;
  }

  /** Lowers the body limit to a framework's own where that is smaller (Fastify's `bodyLimit`); at start-up. */
  capBodyBytes(limit: number): void {
    this.bodyLimit = Math.min(this.bodyLimit, limit);
  }

  /** The kernel's 2025-era leg; undefined when `legacy.mode` is 'off'. */
  get legacy(): McpKernel['legacy'] {
    return this.kernel.legacy;
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
    this.inFlight.close();
    this.kernel.close();
    await this.inFlight.drain(drainTimeoutMs);
  }

  /** The rungs that need only the method and headers, so a refusal never reads the body. */
  preflight(req: IncomingMessage): HttpRejection | null {
    return this.headerRungs(req) ?? this.declaredSize(req);
  }

  private headerRungs(req: IncomingMessage): HttpRejection | null {
    if (this.inFlight.isClosing) return SHUTTING_DOWN;
    if (isInProcessRequest(req)) return IN_PROCESS_LOOP;
    const headers = req.headers;
    const origin = headers.origin;
    const refused = this.hostOrigin.check(headers.host, Array.isArray(origin) ? origin[0] : origin);
    if (refused) return { status: 403, message: refused };
    if (req.method !== 'POST') {
      // A 2025-era session's stream and its end; neither has a body to check.
      if (this.sessions && (req.method === 'GET' || req.method === 'DELETE')) return null;
      // Both eras: 2026-07-28 has no GET stream, and a stateless 2025 server offers none (a 405, not a 404:
      // clients treat only a 405 as "no standalone stream here").
      const message =
        'Method Not Allowed: this MCP endpoint accepts POST only (no standalone stream, no session to delete)';
      return { status: 405, message, headers: { allow: 'POST' }, code: ErrorCode.ServerError };
    }
    const mediaError = checkMediaType(headers['content-type']);
    if (mediaError) return { status: 415, message: mediaError };
    return null;
  }

  private declaredSize(req: IncomingMessage): HttpRejection | null {
    const length = Number(req.headers['content-length']);
    if (Number.isFinite(length) && length > this.bodyLimit) {
      return {
        status: 413,
        message: `Request body exceeds the limit of ${this.bodyLimit} bytes`,
        headers: { connection: 'close' },
      };
    }
    return null;
  }

  /**
   * Whether a POST's body is read in the route (`handle`), after the app's guards and the authentication that
   * reads what they set, rather than by `admit` before the route: then a front layer must keep every parser off it.
   */
  get readsBodyInRoute(): boolean {
    return this.auth.afterGuards;
  }

  /**
   * The rungs a front layer runs before the framework's route: the header rungs, authentication when the headers
   * suffice for it (a bearer token), the declared size, and the body read, unless it is read in the route
   * (`readsBodyInRoute`). Answers the request itself and returns null when refused. `httpRequest` is the
   * framework's request, where an authenticator leaves the caller for guards and interceptors.
   */
  admit(req: IncomingMessage, res: ServerResponse, httpRequest: unknown = req): Promise<PreparedBody | null> {
    return new Promise((resolve) => this.admitThen(req, res, httpRequest, resolve));
  }

  /**
   * `admit`, handing its verdict to `then` rather than to a promise: a front layer's hook goes on from the body's
   * end (or at once, for a refusal known from the headers) with no promise and no microtask in between.
   */
  admitThen(
    req: IncomingMessage,
    res: ServerResponse,
    httpRequest: unknown,
    then: (admitted: PreparedBody | null) => void,
  ): void {
    const rejection = this.headerRungs(req);
    if (rejection) {
      this.reject(res, rejection);
      return then(null);
    }
    if (!this.auth.fromHeaders) return this.admitBody(req, res, undefined, then);
    void whenReady(this.auth.run(req, httpRequest), async (authentication) => {
      if (authentication.ok) return this.admitBody(req, res, authentication, then);
      await this.auth.refuse(authentication, undefined, res, httpRequest, req);
      dropUnread(req, this.bodyLimit);
      then(null);
    });
  }

  /** The rungs of `admit` after authentication: the declared size, then the body read (unless in the route). */
  private admitBody(
    req: IncomingMessage,
    res: ServerResponse,
    authentication: HttpAuthentication | undefined,
    then: (admitted: PreparedBody | null) => void,
  ): void {
    // A session's GET or DELETE has no body: it is served once the route has it.
    if (req.method !== 'POST') return then(authentication ? { authentication } : ADMITTED);
    const tooLarge = this.declaredSize(req);
    if (tooLarge) {
      void discardRest(req, this.bodyLimit).then(() => {
        this.reject(res, tooLarge);
        then(null);
      });
      return;
    }
    if (this.auth.afterGuards) return then(ADMITTED);
    this.readAdmitted(req, res, authentication, then);
  }

  /** Reads the body of an admitted POST under its bound and deadline; answers a refusal itself (null). */
  private readAdmitted(
    req: IncomingMessage,
    res: ServerResponse,
    authentication: HttpAuthentication | undefined,
    then: (admitted: PreparedBody | null) => void,
  ): void {
    readBody(req, this.bodyLimit, this.bodyTimeoutMs, (result) => {
      if (result instanceof Buffer) return then(authentication ? { raw: result, authentication } : { raw: result });
      const refusal = result as BodyRefusal;
      const refuse = () => {
        this.reject(res, rejectionOf(refusal));
        then(null);
      };
      if (refusal.status === 413) void discardRest(req, this.bodyLimit).then(refuse);
      else refuse();
    });
  }

  /**
   * Serves one HTTP exchange. `prepared` is what a front layer already did (`admit`, and perhaps the body read);
   * without it the driver admits the request itself. Not an async function: most calls wait on nothing (the
   * front layer read the body, the caller needs no lookup, the tool answers at once), and an async function's
   * frame and promise would be made for each of them; such a call gets one shared, settled promise.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    prepared?: PreparedBody,
    httpRequest: unknown = req,
  ): Promise<void> {
    try {
      if (!prepared)
        return this.admit(req, res, httpRequest).then(
          (admitted) => admitted && this.handle(req, res, admitted, httpRequest),
        ) as Promise<void>;
      // Before the body and before anything is dispatched, so every message, notifications included, needs a
      // caller, and one the authenticator refuses costs no body read or inflation.
      const pending = this.auth.once(prepared.authentication, req, httpRequest);
      if (isThenable(pending)) return pending.then((auth) => this.authenticated(req, res, prepared, httpRequest, auth));
      return this.authenticated(req, res, prepared, httpRequest, pending);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private authenticated(
    req: IncomingMessage,
    res: ServerResponse,
    admitted: PreparedBody,
    httpRequest: unknown,
    auth: HttpAuthentication | undefined,
  ): Promise<void> {
    const read = admitted.raw !== undefined || 'parsed' in admitted;
    if (auth && !auth.ok)
      return this.auth.refuseInRoute(auth, read ? admitted : undefined, req, res, httpRequest, this.bodyLimit);
    if (req.method !== 'POST') return this.serveSession(req, res, auth);
    if (read) return this.serveBody(req, res, admitted, httpRequest, auth);
    return new Promise<PreparedBody | null>((read) => this.readAdmitted(req, res, undefined, read)).then(
      (read) => read && this.serveBody(req, res, read, httpRequest, auth),
    ) as Promise<void>;
  }

  /** An admitted POST from its body on: JSON, the era, the message's shape and headers, then the kernel. */
  private serveBody(
    req: IncomingMessage,
    res: ServerResponse,
    body: PreparedBody,
    httpRequest: unknown,
    auth: Exclude<HttpAuthentication, HttpAuthenticationRefusal> | undefined,
  ): Promise<void> {
    let message: unknown = body.parsed;
    if (body.raw) {
      try {
        // UTF-8, as `toString` without arguments reads it, skipping the lookup of a named encoding.
        message = JSON.parse(body.raw.toString());
      } catch {
        return this.written(
          res,
          400,
          errorResponse(null, ErrorCode.ParseError, 'Parse error: the body is not valid JSON'),
        );
      }
    }

    const headers = req.headers;
    const era = classifyEra(message, headers);
    if (era.era === 'refused') return this.written(res, era.status, era.response);
    if (era.era !== 'modern' && !(era.era === 'reply' && !this.legacyHttp)) {
      if (!this.legacyHttp) return this.written(res, 400, legacyOffError(message, era.version));
      if (era.era === 'reply')
        return this.legacyHttp.acceptReply(message as Record<string, unknown>, req, res, auth?.principal);
      return this.legacyHttp.serve(era.version, message, req, res, httpRequest, auth) ?? SERVED;
    }

    const verdict = classifyMessage(message);
    if (verdict.kind === 'invalid') return this.written(res, 400, verdict.response);
    if (verdict.kind === 'notification') {
      this.acknowledge(req, res);
      return SERVED;
    }
    const refused = classifyHttpRequest(verdict.request, headers);
    if (refused) return this.written(res, httpStatusForError(refused.error), refused);

    const exchange = this.inFlight.admit(req, res, httpRequest, auth);
    if (!exchange) return SERVED;
    // A call answered synchronously is written at once; only one still running is tracked for the drain.
    const answer = this.kernel.dispatchNow(verdict.request, exchange);
    // `isThenable` spelled out: asked of every answer, and a call costs the interpreter more than its body.
    if (typeof (answer as Partial<PromiseLike<unknown>>).then === 'function')
      return this.inFlight
        .run(exchange, answer as Promise<JsonRpcResponse>)
        .then((response) => this.respond(res, response));
    this.respond(res, this.inFlight.answered(exchange, answer as JsonRpcResponse));
    return SERVED;
  }

  private written(res: ServerResponse, status: number, body: JsonRpcResponse): Promise<void> {
    this.writer.write(res, status, body);
    return SERVED;
  }

  private respond(res: ServerResponse, response: JsonRpcResponse | undefined): void {
    if (!response) return;
    if (!('error' in response)) return this.writer.write(res, 200, response);
    const headers = this.auth.scopeChallenge(response) ?? httpHeadersForError(response.error);
    this.writer.write(res, httpStatusForError(response.error), response, headers);
  }

  /**
   * This revision defines no client-to-server notifications over HTTP: accept and drop, unless the client
   * speaks a version this server does not, which it must learn rather than be silently acknowledged.
   */
  private acknowledge(req: IncomingMessage, res: ServerResponse): void {
    const version = singleHeader(req.headers, 'mcp-protocol-version');
    if (version != null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      this.writer.write(res, 400, unsupportedVersionError(null, version));
      return;
    }
    res.writeHead(202).end();
  }

  /** GET (the session's stream) and DELETE (its end), authenticated as a POST is. */
  private serveSession(req: IncomingMessage, res: ServerResponse, auth: HttpAuthentication | undefined): Promise<void> {
    const principal = auth?.ok ? auth.principal : undefined;
    const caller = this.kernel.callerOf({ principal });
    if (req.method === 'DELETE') return this.sessions!.end(req, res, caller);
    return this.sessions!.openStream(req, res, caller, auth?.ok ? auth.scopes : undefined);
  }

  /**
   * Answers a request that the app's own guard refused as unauthenticated before it reached `handle`: with an
   * authenticator, the challenge it would have sent (clients need it to get or refresh a token); without one,
   * the JSON-RPC 401 that the endpoint answers everything with.
   */
  async refuseUnauthenticated(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this.auth.refuseUnauthenticated(req, res);
    // The guard ran before the body was read (the front layer kept it for the driver).
    if (!req.readableEnded) dropUnread(req, this.bodyLimit);
  }

  reject(res: ServerResponse, rejection: HttpRejection): void {
    this.writer.reject(res, rejection);
  }
}
