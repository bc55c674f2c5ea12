import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { singleHeader } from '../protocol/header-codec.js';
import { errorResponse, type RequestId } from '../protocol/jsonrpc.js';
import type { Caller } from '../server/access/caller-identity.js';
import type { LegacySessions, SessionRefusal } from '../server/sessions/legacy-sessions.js';
import { parseEventId, type SessionEvent, type SessionRecord } from '../server/sessions/session-store.js';
import { primingFrame, sessionFrame, SSE_HEADERS } from './http-exchange.js';
import type { JsonWriter } from './json-writer.js';

const KEEP_ALIVE = ': keep-alive\n\n';
// What a session's GET stream is claimed under, whatever its events are named: one per session.
const GET_STREAM = 'get';

/**
 * The HTTP side of 2025-era sessions (`legacy.mode: 'stateful'`): the `Mcp-Session-Id` of every request,
 * the session's GET stream (one per session: a second gets 409), the resumption of a stream with
 * `Last-Event-ID`, and DELETE. The streams a session holds here are bounded (`maxStreamsPerSession`).
 */
export class SessionHttp {
  private readonly streamsPerSession = new Map<string, number>();

  constructor(
    readonly sessions: LegacySessions,
    private readonly writer: JsonWriter,
    private readonly keepAliveMs: number,
  ) {}

  /** The session a request names when it is the caller's own; else the refusal has been written. */
  async resolve(
    req: IncomingMessage,
    res: ServerResponse,
    caller: Caller,
    id: RequestId | null,
  ): Promise<SessionRecord | undefined> {
    const found = await this.attempt(res, () => this.sessions.resolve(sessionIdOf(req), caller));
    if (!found) return undefined;
    if ('status' in found) {
      this.refuse(res, found, id);
      return undefined;
    }
    return found;
  }

  /** A session's answer to `initialize`: the minted id, or the refusal written. */
  async mint(
    res: ServerResponse,
    caller: Caller,
    protocolVersion: string,
    params: Record<string, unknown> | undefined,
    id: RequestId,
  ): Promise<string | undefined> {
    const opened = await this.attempt(res, () => this.sessions.open(caller, protocolVersion, params));
    if (!opened) return undefined;
    if ('status' in opened) {
      this.refuse(res, opened, id);
      return undefined;
    }
    return opened.id;
  }

  /** GET: the session's stream, or a resumed one after `Last-Event-ID`. */
  async openStream(req: IncomingMessage, res: ServerResponse, caller: Caller, scopes?: readonly string[]) {
    if (!/\btext\/event-stream\b/i.test(req.headers.accept ?? '')) {
      const text = 'Not Acceptable: a GET stream needs an Accept header listing text/event-stream';
      this.writer.write(res, 406, errorResponse(null, ErrorCode.ServerError, text));
      return;
    }
    const session = await this.resolve(req, res, caller, null);
    if (!session) return;
    const lastEventId = singleHeader(req.headers, 'last-event-id');
    const resumed = lastEventId == null ? undefined : parseEventId(lastEventId);
    if (lastEventId != null && !resumed) {
      const text = 'Bad Request: Last-Event-ID names no event of this session';
      this.writer.write(res, 400, errorResponse(null, ErrorCode.ServerError, text));
      return;
    }
    const following = resumed && resumed.stream.startsWith('p') ? resumed.stream : undefined;
    const claim = following ?? GET_STREAM;
    const holder = await this.claimStream(res, session.id, claim, following !== undefined);
    if (!holder) return;
    const store = this.sessions.store;

    const stream = following ? undefined : this.sessions.stream(session, 'g');
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': session.id });
    if (stream) res.write(primingFrame(stream.primingId, this.sessions.retryMs));
    // A resumed stream may have nothing to send yet: the client is told at once that it is open.
    else res.flushHeaders();
    const cleanups: Array<() => void> = [];
    const done = () => {
      if (!res.writableEnded) res.end();
    };
    const write = (event: SessionEvent | null): boolean => {
      if (event === null) return (done(), false);
      if (res.writableEnded || res.destroyed) return false;
      res.write(sessionFrame(event));
      // A POST stream carries one response: once it is there, the resumed stream has nothing more to say.
      if (following && isResponse(event.data)) done();
      return true;
    };
    // Watched before the replay, so nothing kept in between is missed; a replayed id is not written twice.
    let replayedUpTo = resumed?.seq ?? 0;
    const live: SessionEvent[] = [];
    let replaying = true;
    if (following) {
      cleanups.push(
        store.watch(session.id, following, (event) => {
          if (replaying && event) live.push(event);
          else if (!event || seqOf(event) > replayedUpTo) write(event);
        }),
      );
    } else {
      cleanups.push(store.watch(session.id, stream!.name, (event) => event === null && done()));
      cleanups.push(this.sessions.attach(stream!, scopes, write));
    }
    const stopTimers = this.keepOpen(res, session.id, claim, holder, done);
    res.once('close', () => {
      stopTimers();
      for (const cleanup of cleanups) cleanup();
      const left = (this.streamsPerSession.get(session.id) ?? 1) - 1;
      if (left <= 0) this.streamsPerSession.delete(session.id);
      else this.streamsPerSession.set(session.id, left);
      void store.releaseStream(session.id, claim, holder).catch(() => undefined);
    });
    if (resumed) {
      const missed = await store.replay(session.id, resumed.stream, resumed.seq).catch(() => []);
      for (const event of missed) {
        if (!write(event)) break;
        replayedUpTo = seqOf(event);
      }
    }
    replaying = false;
    for (const event of live) if (seqOf(event) > replayedUpTo && !write(event)) break;
  }

  /**
   * Claims the stream `claim` for this GET (a session has one GET stream, and a POST stream is resumed by one GET
   * at a time); answers a refusal (409) itself. Returns the claim's holder, or undefined when refused.
   */
  private async claimStream(
    res: ServerResponse,
    sessionId: string,
    claim: string,
    resuming: boolean,
  ): Promise<string | undefined> {
    const holder = randomBytes(9).toString('base64url');
    const lease = this.sessions.streamLeaseMs;
    const open = this.streamsPerSession.get(sessionId) ?? 0;
    const store = this.sessions.store;
    const claimed =
      open < this.sessions.maxStreamsPerSession &&
      (await this.attempt(res, () => store.claimStream(sessionId, claim, holder, lease)));
    if (!claimed) {
      if (res.headersSent) return undefined;
      const text = resuming
        ? 'Conflict: this stream is already being resumed'
        : 'Conflict: this session already has its GET stream open (one per session)';
      this.writer.write(res, 409, errorResponse(null, ErrorCode.ServerError, text));
      return undefined;
    }
    this.streamsPerSession.set(sessionId, open + 1);
    return holder;
  }

  /** Keeps an open GET stream going (keep-alive comments, its claim renewed); returns what stops both. */
  private keepOpen(
    res: ServerResponse,
    sessionId: string,
    claim: string,
    holder: string,
    done: () => void,
  ): () => void {
    const store = this.sessions.store;
    const lease = this.sessions.streamLeaseMs;
    const timer =
      this.keepAliveMs > 0
        ? setInterval(() => {
            if (res.writableEnded) return;
            res.write(KEEP_ALIVE);
            // An open stream keeps its session alive; one that ended meanwhile ends the stream.
            void store.get(sessionId).then(
              (alive) => alive || done(),
              () => undefined,
            );
          }, this.keepAliveMs)
        : undefined;
    // The claim lives while this stream does: renewed well inside its lease; a claim lost (the session ended, or
    // a stall let it lapse and another stream took it) ends this stream, so one GET per session still holds.
    const renewal = setInterval(
      () =>
        void store.renewStream(sessionId, claim, holder, lease).then(
          (held) => held || done(),
          () => undefined,
        ),
      Math.max(1, Math.floor(lease / 3)),
    );
    return () => {
      clearInterval(timer);
      clearInterval(renewal);
    };
  }

  /** DELETE: ends the caller's session everywhere. */
  async end(req: IncomingMessage, res: ServerResponse, caller: Caller): Promise<void> {
    const refused = await this.attempt(res, () => this.sessions.end(sessionIdOf(req), caller));
    if (refused === null) return;
    if (refused) this.refuse(res, refused, null);
    else res.writeHead(200).end();
  }

  private refuse(res: ServerResponse, refusal: SessionRefusal, id: RequestId | null): void {
    const code = refusal.code ?? (refusal.status === 404 ? ErrorCode.SessionNotFound : ErrorCode.ServerError);
    this.writer.write(res, refusal.status, errorResponse(id, code, refusal.message));
  }

  /** A store that cannot be reached (Redis down) is the server's fault: 503 naming it, never a bare 500. */
  private async attempt<T>(res: ServerResponse, work: () => Promise<T>): Promise<T | null> {
    try {
      return await work();
    } catch (error) {
      const text = `Service Unavailable: the session store cannot be reached (${error instanceof Error ? error.message : String(error)})`;
      this.writer.write(res, 503, errorResponse(null, ErrorCode.InternalError, text));
      return null;
    }
  }
}

/** The session a request names: undefined when it names none (or several, which names none either). */
export function sessionIdOf(req: IncomingMessage): string | undefined {
  return singleHeader(req.headers, 'mcp-session-id') ?? undefined;
}

function seqOf(event: SessionEvent): number {
  return parseEventId(event.id)?.seq ?? 0;
}

function isResponse(data: string): boolean {
  const message = JSON.parse(data) as Record<string, unknown>;
  return 'id' in message && !('method' in message);
}
