import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyMessage } from '../protocol/classifier.js';
import { replyAnswer } from '../protocol/client-reply.js';
import { ErrorCode, httpHeadersForError, httpStatusForError } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import type { LegacyLeg } from '../server/legacy/legacy-leg.js';
import type { SessionRecord } from '../server/sessions/session-store.js';
import { isThenable } from '../server/util/when-ready.js';
import type { InFlightExchanges } from './in-flight-exchanges.js';
import type { JsonWriter } from './json-writer.js';
import { acceptsJsonAndEventStream } from './policy/media-type.js';
import type { HttpAuthentication } from './mcp-http-options.js';
import { SessionHttp } from './session-http.js';

/** What a 2025-era message arrived with, for the steps that serve it. */
interface Served {
  version: string;
  req: IncomingMessage;
  res: ServerResponse;
  httpRequest: unknown;
  auth: HttpAuthentication | undefined;
}

const REFUSAL_CODES: ReadonlySet<number> = new Set([ErrorCode.InsufficientScope, ErrorCode.RateLimited]);

/**
 * The 2025-era leg over Streamable HTTP: what the driver hands a POST the classifier placed in that era.
 * Stateless (the default), no `Mcp-Session-Id` is read or written, and there is no GET stream (the driver's
 * 405 covers both eras), so a server→client request rides the stream of the POST that needs its answer and
 * the answer comes back as a POST of its own. With `legacy.mode: 'stateful'`, `initialize` mints a session
 * that every later message must name (`sessions`: GET and DELETE too), and its streams are resumable.
 */
export class LegacyHttp {
  /** The session rules of the stateful mode; undefined when stateless. */
  readonly sessions: SessionHttp | undefined;

  constructor(
    private readonly leg: LegacyLeg,
    private readonly inFlight: InFlightExchanges,
    private readonly writer: JsonWriter,
    private readonly scopeChallenge: (response: JsonRpcResponse) => Record<string, string> | undefined,
    keepAliveMs: number,
  ) {
    if (leg.sessions) this.sessions = new SessionHttp(leg.sessions, writer, keepAliveMs);
  }

  /**
   * A 2025-era message: a notification is acknowledged; a request is served by the legacy leg and answered 200
   * (JSON, or SSE once it notifies or asks the client something), its JSON-RPC errors in-band as 2025 clients
   * expect, except a lack of scopes, which gets the 403 step-up challenge as in 2026-07-28 (2025-11-25
   * authorization, "insufficient_scope"): a client steps up on the status, never on a body.
   */
  serve(
    version: string,
    message: unknown,
    req: IncomingMessage,
    res: ServerResponse,
    httpRequest: unknown,
    auth: HttpAuthentication | undefined,
  ): void | Promise<void> {
    const verdict = classifyMessage(message);
    if (verdict.kind === 'invalid') {
      this.writer.write(res, 400, verdict.response);
      return;
    }
    const served: Served = { version, req, res, httpRequest, auth };
    if (this.sessions && !(verdict.kind === 'request' && verdict.request.method === 'initialize'))
      return this.serveInSession(verdict, served, this.sessions);
    if (verdict.kind === 'notification') {
      res.writeHead(202).end();
      return;
    }
    return this.answer(verdict.request, served, undefined);
  }

  /** A message of a stateful session, which it must name: served once the session is resolved. */
  private async serveInSession(
    verdict: { kind: 'request'; request: JsonRpcRequest } | { kind: 'notification' },
    served: Served,
    sessions: SessionHttp,
  ): Promise<void> {
    const { req, res, auth } = served;
    const caller = this.leg.callerOf(auth?.ok ? auth.principal : undefined);
    const session = await sessions.resolve(req, res, caller, verdict.kind === 'request' ? verdict.request.id : null);
    if (!session) return;
    if (verdict.kind === 'notification') res.writeHead(202).end();
    else await this.answer(verdict.request, served, session);
  }

  /**
   * A request served by the leg. A call answered synchronously is written at once; only one still running is
   * tracked for the drain and written when it settles.
   */
  private answer(request: JsonRpcRequest, served: Served, session: SessionRecord | undefined): void | Promise<void> {
    const { req, res } = served;
    // Only a request has an answer whose form matters; a notification's or a reply's 202 has no body.
    if (!acceptsJsonAndEventStream(req.headers.accept)) {
      const text = 'Not Acceptable: the Accept header must list both application/json and text/event-stream';
      this.writer.write(res, 406, errorResponse(request.id, ErrorCode.ServerError, text));
      return;
    }
    const exchange = this.inFlight.admit(req, res, served.httpRequest, served.auth);
    if (!exchange) return;
    const sessions = this.sessions;
    if (session) exchange.resumable(sessions!.sessions.stream(session, 'p'), sessions!.sessions.retryMs);
    const answer = this.leg.handle(request, exchange, served.version, session);
    if (isThenable(answer))
      return this.inFlight
        .run(exchange, answer as Promise<JsonRpcResponse>)
        .then((response) => this.reply(request, served, response));
    return this.reply(request, served, this.inFlight.answered(exchange, answer));
  }

  /** Writes the leg's answer; in a stateful leg, an `initialize` answered mints the session it opens. */
  private reply(request: JsonRpcRequest, served: Served, response: JsonRpcResponse | undefined): void | Promise<void> {
    if (!response) return;
    if (this.sessions && request.method === 'initialize' && 'result' in response)
      return this.mintAndReply(request, served, response, this.sessions);
    this.write(served.res, response, this.scopeChallenge(response));
  }

  private async mintAndReply(
    request: JsonRpcRequest,
    served: Served,
    response: JsonRpcResponse & { result: Record<string, unknown> },
    sessions: SessionHttp,
  ): Promise<void> {
    const { res, auth } = served;
    const caller = this.leg.callerOf(auth?.ok ? auth.principal : undefined);
    const negotiated = (response.result as { protocolVersion: string }).protocolVersion;
    const id = await sessions.mint(res, caller, negotiated, request.params, request.id);
    if (id === undefined) return;
    this.write(res, response, { ...this.scopeChallenge(response), 'mcp-session-id': id });
  }

  /**
   * The 2025-era SDKs read a JSON-RPC error in a 200; a step-up and a come-back-later keep their statuses, which
   * clients act on before reading the body.
   */
  private write(res: ServerResponse, response: JsonRpcResponse, headers: Record<string, string> | undefined): void {
    const refusal = 'error' in response && REFUSAL_CODES.has(response.error.code) ? response.error : undefined;
    if (refusal) headers = { ...headers, ...httpHeadersForError(refusal) };
    this.writer.write(res, refusal ? httpStatusForError(refusal) : 200, response, headers);
  }

  /** A client's answer to a server request: 202 once routed to the call that waits for it, else a 4xx. */
  async acceptReply(
    message: Record<string, unknown>,
    req: IncomingMessage,
    res: ServerResponse,
    principal: unknown,
  ): Promise<void> {
    if (this.sessions && !(await this.sessions.resolve(req, res, this.leg.callerOf(principal), null))) return;
    let outcome;
    try {
      outcome = await this.leg.acceptReply(message, principal);
    } catch (error) {
      // A shared reply router that cannot be reached (Redis down): the reply was not routed, and the client may
      // send it again; the server's fault, so a 503 naming it rather than a bare 500.
      const text = error instanceof McpError ? error.message : 'Internal error: the reply could not be routed';
      this.writer.reject(res, { status: 503, code: ErrorCode.InternalError, message: text });
      return;
    }
    const answer = replyAnswer(outcome);
    if ('response' in answer) this.writer.write(res, answer.status, answer.response);
    else res.writeHead(202).end();
  }
}
