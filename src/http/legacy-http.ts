import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyMessage } from '../protocol/classifier.js';
import { replyAnswer } from '../protocol/client-reply.js';
import { ErrorCode, httpHeadersForError, httpStatusForError } from '../protocol/error-codes.js';
import { errorResponse, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { McpError } from '../protocol/mcp-error.js';
import type { LegacyLeg } from '../server/legacy/legacy-leg.js';
import type { SessionRecord } from '../server/sessions/session-store.js';
import type { InFlightExchanges } from './in-flight-exchanges.js';
import type { JsonWriter } from './json-writer.js';
import { acceptsJsonAndEventStream } from './policy/media-type.js';
import type { HttpAuthentication } from './mcp-http-options.js';
import { SessionHttp } from './session-http.js';

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
  async serve(
    version: string,
    message: unknown,
    req: IncomingMessage,
    res: ServerResponse,
    httpRequest: unknown,
    auth: HttpAuthentication | undefined,
  ): Promise<void> {
    const verdict = classifyMessage(message);
    if (verdict.kind === 'invalid') {
      this.writer.write(res, 400, verdict.response);
      return;
    }
    const sessions = this.sessions;
    const initializing = verdict.kind === 'request' && verdict.request.method === 'initialize';
    const caller = sessions && this.leg.callerOf(auth?.ok ? auth.principal : undefined);
    let session: SessionRecord | undefined;
    if (sessions && !initializing) {
      session = await sessions.resolve(req, res, caller, verdict.kind === 'request' ? verdict.request.id : null);
      if (!session) return;
    }
    if (verdict.kind === 'notification') {
      res.writeHead(202).end();
      return;
    }
    // Only a request has an answer whose form matters; a notification's or a reply's 202 has no body.
    if (!acceptsJsonAndEventStream(req.headers.accept)) {
      const text = 'Not Acceptable: the Accept header must list both application/json and text/event-stream';
      this.writer.write(res, 406, errorResponse(verdict.request.id, ErrorCode.ServerError, text));
      return;
    }
    const exchange = this.inFlight.admit(req, res, httpRequest, auth);
    if (!exchange) return;
    if (session) exchange.resumable(sessions!.sessions.stream(session, 'p'), sessions!.sessions.retryMs);
    const request = verdict.request;
    const response = await this.inFlight.run(exchange, this.leg.handle(request, exchange, version, session));
    if (!response) return;
    let challenge = this.scopeChallenge(response);
    if (sessions && initializing && 'result' in response) {
      const negotiated = (response.result as { protocolVersion: string }).protocolVersion;
      const id = await sessions.mint(res, caller, negotiated, request.params, request.id);
      if (id === undefined) return;
      challenge = { ...challenge, 'mcp-session-id': id };
    }
    // The 2025-era SDKs read a JSON-RPC error in a 200; a step-up and a come-back-later keep their statuses, which
    // clients act on before reading the body.
    const refusal = 'error' in response && REFUSAL_CODES.has(response.error.code) ? response.error : undefined;
    if (refusal) challenge = { ...challenge, ...httpHeadersForError(refusal) };
    this.writer.write(res, refusal ? httpStatusForError(refusal) : 200, response, challenge);
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
