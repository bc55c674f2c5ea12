import type { ClientCapabilities, Implementation } from '../../protocol/mcp-types.js';

/** One 2025-era session, as `initialize` made it. */
export interface SessionRecord {
  /** The `Mcp-Session-Id`: 192 random bits, base64url. */
  id: string;
  /** Who made it (the caller identity's digest, bound to the server): only the same caller may use it. */
  owner: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** Epoch ms of the last request that carried it. */
  lastActivity: number;
  /** How long it lives without a request; every use starts the period again. */
  idleTimeoutMs: number;
  /** How many events its streams keep for a resuming client, oldest dropped first. */
  maxEvents: number;
  /** How many bytes of events (their JSON) it keeps, oldest dropped first: one larger is sent, never kept. */
  maxEventBytes: number;
}

/** The size an event is counted at against `maxEventBytes`: its JSON. */
export function eventBytes(event: SessionEvent): number {
  return Buffer.byteLength(JSON.stringify(event));
}

/** What `create` says when a session could not be made. */
export type SessionAdmission = 'created' | 'caller-full' | 'full';

/** What `subscribe` says: held now (or already), refused at the cap, or the session is gone. */
export type SubscribeOutcome = 'subscribed' | 'full' | 'gone';

/** One message on a session's stream, under the SSE id a client resumes from. */
export interface SessionEvent {
  /** `<stream>_<seq>`: the stream it belongs to and its place there. */
  id: string;
  /** The message as the SSE `data` line carries it (JSON text). */
  data: string;
}

/**
 * Where live events of one stream go: an event, or null when the session ended (deleted, expired) and the
 * stream must close.
 */
export type SessionEventListener = (event: SessionEvent | null) => void;

/**
 * Keeps 2025-era sessions and their streams' recent events, so any instance that shares the store serves any
 * session: the POST of a call, the GET that resumes its stream and the DELETE that ends it may each land on a
 * different instance.
 *
 * The contract, for every implementation:
 * - `create` counts live sessions per owner and in total and refuses past either cap, atomically.
 * - `get` returns a live session and starts its idle period again; an expired or deleted one is undefined.
 * - `append` keeps an event of a live session (at most `maxEvents` and `maxEventBytes` per session, the oldest
 *   dropped first) and hands it to every
 *   `watch` of its stream, wherever it was made; `replay` returns a stream's kept events after an id, in order.
 * - `subscribe` adds a URI to a session's subscriptions, refusing past `max` URIs or `maxBytes` bytes of URIs
 *   (UTF-8), atomically: concurrent calls of one session never lose each other's URIs nor pass a cap together;
 *   `unsubscribe` removes one; `subscribed` says whether one is held, reading nothing else of the session.
 * - `claimStream` is true for the first claim of a stream by a holder until the holder releases it, the session
 *   ends, or `leaseMs` passes without `renewStream` by that holder: one GET per session, one resumer per stream,
 *   and an instance that dies holding a claim frees it within a lease. Only the holder renews or releases.
 * - `delete` ends the session everywhere: its events go and its watchers get null.
 */
export interface SessionStore {
  create(session: SessionRecord, limits: { maxPerCaller: number; maxTotal: number }): Promise<SessionAdmission>;
  get(id: string): Promise<SessionRecord | undefined>;
  subscribe(id: string, uri: string, max: number, maxBytes?: number): Promise<SubscribeOutcome>;
  /** False when the session is gone. */
  unsubscribe(id: string, uri: string): Promise<boolean>;
  subscribed(id: string, uri: string): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  append(sessionId: string, event: SessionEvent): Promise<void>;
  replay(sessionId: string, stream: string, afterSeq: number): Promise<SessionEvent[]>;
  watch(sessionId: string, stream: string, listener: SessionEventListener): () => void;
  claimStream(sessionId: string, stream: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Extends the holder's claim by `leaseMs`; false when it lapsed, went to another or the session ended. */
  renewStream(sessionId: string, stream: string, holder: string, leaseMs: number): Promise<boolean>;
  releaseStream(sessionId: string, stream: string, holder: string): Promise<void>;
  /** Stops timers and listeners; the sessions themselves are left to their idle timeout. */
  close(): Promise<void>;
}

/** The stream and sequence number an event id names, or undefined for an id this server never made. */
export function parseEventId(id: string): { stream: string; seq: number } | undefined {
  const match = /^([A-Za-z0-9-]{1,32})_(\d{1,15})$/.exec(id);
  return match ? { stream: match[1], seq: Number(match[2]) } : undefined;
}

/** The watchers of sessions' streams on this instance: what every store hands appends and ends to. */
export class SessionWatchers {
  private readonly watchers = new Map<string, Set<SessionEventListener>>();

  add(sessionId: string, stream: string, listener: SessionEventListener): () => void {
    const key = watchKey(sessionId, stream);
    let set = this.watchers.get(key);
    if (!set) this.watchers.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.watchers.get(key) === set) this.watchers.delete(key);
    };
  }

  /** Hands an event to the watchers of its stream. */
  emit(sessionId: string, event: SessionEvent): void {
    const stream = event.id.slice(0, event.id.lastIndexOf('_'));
    for (const listener of this.watchers.get(watchKey(sessionId, stream)) ?? []) listener(event);
  }

  /** Tells every watcher of the session that it ended, and forgets them. */
  end(sessionId: string): void {
    const prefix = `${sessionId}\u0000`;
    for (const [key, listeners] of this.watchers) {
      if (!key.startsWith(prefix)) continue;
      this.watchers.delete(key);
      for (const listener of listeners) listener(null);
    }
  }

  clear(): void {
    this.watchers.clear();
  }
}

interface LiveSession {
  record: SessionRecord;
  /** Kept events, oldest first, each with its size as `eventBytes` counts it. */
  events: Array<{ event: SessionEvent; bytes: number }>;
  /** Their bytes in all. */
  eventBytes: number;
  subscriptions: Set<string>;
  /** Bytes of `subscriptions`. */
  subscriptionBytes: number;
  /** Each claimed stream's holder and when its lease ends (epoch ms). */
  claimed: Map<string, { holder: string; until: number }>;
}

/** The default store: sessions of this process, swept for idleness once a second at most often. */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly perOwner = new Map<string, number>();
  private readonly watchers = new SessionWatchers();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepMs = 1_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepMs);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async create(session: SessionRecord, limits: { maxPerCaller: number; maxTotal: number }): Promise<SessionAdmission> {
    this.sweep();
    if (this.sessions.size >= limits.maxTotal) return 'full';
    const mine = this.perOwner.get(session.owner) ?? 0;
    if (mine >= limits.maxPerCaller) return 'caller-full';
    this.perOwner.set(session.owner, mine + 1);
    this.sessions.set(session.id, {
      record: { ...session },
      events: [],
      eventBytes: 0,
      subscriptions: new Set(),
      subscriptionBytes: 0,
      claimed: new Map(),
    });
    return 'created';
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const live = this.live(id);
    if (!live) return undefined;
    live.record.lastActivity = Date.now();
    return { ...live.record };
  }

  async subscribe(id: string, uri: string, max: number, maxBytes = Infinity): Promise<SubscribeOutcome> {
    const live = this.live(id);
    if (!live) return 'gone';
    if (live.subscriptions.has(uri)) return 'subscribed';
    const bytes = Buffer.byteLength(uri);
    if (live.subscriptions.size >= max || live.subscriptionBytes + bytes > maxBytes) return 'full';
    live.subscriptions.add(uri);
    live.subscriptionBytes += bytes;
    return 'subscribed';
  }

  async unsubscribe(id: string, uri: string): Promise<boolean> {
    const live = this.live(id);
    if (!live) return false;
    if (live.subscriptions.delete(uri)) live.subscriptionBytes -= Buffer.byteLength(uri);
    return true;
  }

  async subscribed(id: string, uri: string): Promise<boolean> {
    return this.live(id)?.subscriptions.has(uri) ?? false;
  }

  async delete(id: string): Promise<boolean> {
    if (!this.live(id)) return false;
    this.end(id);
    return true;
  }

  async append(sessionId: string, event: SessionEvent): Promise<void> {
    const live = this.live(sessionId);
    if (!live) return;
    const size = eventBytes(event);
    live.events.push({ event, bytes: size });
    const { maxEvents, maxEventBytes } = live.record;
    let drop = 0;
    let bytes = live.eventBytes + size;
    while (drop < live.events.length && (live.events.length - drop > maxEvents || bytes > maxEventBytes))
      bytes -= live.events[drop++].bytes;
    if (drop > 0) live.events.splice(0, drop);
    live.eventBytes = bytes;
    this.watchers.emit(sessionId, event);
  }

  async replay(sessionId: string, stream: string, afterSeq: number): Promise<SessionEvent[]> {
    const live = this.live(sessionId);
    if (!live) return [];
    return live.events
      .map((kept) => kept.event)
      .filter((event) => {
        const at = parseEventId(event.id);
        return at !== undefined && at.stream === stream && at.seq > afterSeq;
      });
  }

  watch(sessionId: string, stream: string, listener: SessionEventListener): () => void {
    return this.watchers.add(sessionId, stream, listener);
  }

  async claimStream(sessionId: string, stream: string, holder: string, leaseMs: number): Promise<boolean> {
    const live = this.live(sessionId);
    const claim = live?.claimed.get(stream);
    if (!live || (claim && claim.until > Date.now())) return false;
    live.claimed.set(stream, { holder, until: Date.now() + leaseMs });
    return true;
  }

  async renewStream(sessionId: string, stream: string, holder: string, leaseMs: number): Promise<boolean> {
    const claim = this.live(sessionId)?.claimed.get(stream);
    if (!claim || claim.holder !== holder || claim.until <= Date.now()) return false;
    claim.until = Date.now() + leaseMs;
    return true;
  }

  async releaseStream(sessionId: string, stream: string, holder: string): Promise<void> {
    const claimed = this.sessions.get(sessionId)?.claimed;
    if (claimed?.get(stream)?.holder === holder) claimed.delete(stream);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private live(id: string): LiveSession | undefined {
    const live = this.sessions.get(id);
    if (live && Date.now() - live.record.lastActivity >= live.record.idleTimeoutMs) {
      this.end(id);
      return undefined;
    }
    return live;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, live] of this.sessions)
      if (now - live.record.lastActivity >= live.record.idleTimeoutMs) this.end(id);
  }

  private end(id: string): void {
    const live = this.sessions.get(id);
    if (!live) return;
    this.sessions.delete(id);
    const left = (this.perOwner.get(live.record.owner) ?? 1) - 1;
    if (left <= 0) this.perOwner.delete(live.record.owner);
    else this.perOwner.set(live.record.owner, left);
    this.watchers.end(id);
  }
}

function watchKey(sessionId: string, stream: string): string {
  return `${sessionId}\u0000${stream}`;
}
