import { randomBytes } from 'node:crypto';
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { isPlainObject } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities, Implementation } from '../../protocol/mcp-types.js';
import type { Caller } from '../access/caller-identity.js';
import { hasScopes } from '../access/required-scopes.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { NOT_POSITIVE_INTEGER } from '../errors/configuration-messages.js';
import type { McpBusEvent } from '../events/event-bus.js';
import { canonicalDigest } from '../util/canonical-digest.js';
import { normalizeUri } from '../uri/uri-normalization.js';
import {
  InMemorySessionStore,
  type SessionEvent,
  type SessionRecord,
  type SessionStore,
  type SubscribeOutcome,
} from './session-store.js';

/** The `legacy.sessions` option group: 2025-era sessions, with `legacy.mode: 'stateful'`. */
export interface LegacySessionOptions {
  /** Where sessions and their streams' recent events live; in this process by default. */
  store?: SessionStore;
  /** How long a session lives without a request (or an open GET stream). Default 30 minutes. */
  idleTimeoutMs?: number;
  /** Most live sessions of one identified caller; the next `initialize` gets 429. Default 10. */
  maxPerCaller?: number;
  /** Most live sessions in all; the next `initialize` gets 503. Default 10 000. */
  maxTotal?: number;
  /** Events kept per session for clients that resume a stream (`Last-Event-ID`). Default 100. */
  maxEventsPerSession?: number;
  /** Bytes of events (their JSON) kept per session for resuming clients; the oldest go first. Default 1 MiB. */
  maxEventBytesPerSession?: number;
  /**
   * Bytes of events kept for all the sessions of one identified caller: each of its sessions keeps at most this
   * divided by `maxPerCaller` (or `maxEventBytesPerSession`, when smaller). Default 4 MiB.
   */
  maxEventBytesPerCaller?: number;
  /** Bytes of URIs (UTF-8) one session's `resources/subscribe` calls may hold in all; past it -32602. Default 64 KiB. */
  maxSubscriptionBytes?: number;
  /**
   * Largest `capabilities` and `clientInfo` of an `initialize` a session keeps, in bytes of their JSON; a larger
   * `initialize` is refused with -32602 and makes no session. Default 16 KiB.
   */
  maxInitializeBytes?: number;
  /** Streams one session may hold open at once: its GET stream plus resumed ones. Default 4. */
  maxStreamsPerSession?: number;
  /** The SSE `retry` a stream's priming event tells the client to wait before it reconnects. Default 1 s. */
  retryMs?: number;
  /**
   * How long a stream's claim (one GET per session) holds without renewal: an open stream renews it every
   * third of this, and an instance that dies holding it frees it within this. Default 30 s.
   */
  streamLeaseMs?: number;
}

/** Why a request's session cannot be used: the HTTP status and the message a client is told. */
export interface SessionRefusal {
  status: 400 | 404 | 429 | 503;
  /** The JSON-RPC code, when the status alone does not say it. */
  code?: number;
  message: string;
}

/** Where one stream's messages are written while it is open here; false when the client is gone. */
export type StreamWriter = (event: SessionEvent) => boolean;

const MISSING: SessionRefusal = {
  status: 400,
  message: 'Bad Request: this server keeps sessions; send the Mcp-Session-Id that initialize returned',
};
// The same answer for a session that never was, ended, or belongs to another caller: a session id is not a
// secret to confirm to whoever guesses it.
export const UNKNOWN_SESSION: SessionRefusal = {
  status: 404,
  message: 'Session not found: it ended or never existed; initialize again',
};

/**
 * The 2025-era sessions of `legacy.mode: 'stateful'`, transport-free: `initialize` mints one, every later
 * request of the era resolves it (bound to the caller that made it), `end` deletes it, and the GET streams
 * open on this instance get the server's events (list changes, updates of subscribed resources).
 */
export class LegacySessions {
  readonly store: SessionStore;
  readonly retryMs: number;
  readonly maxStreamsPerSession: number;
  readonly streamLeaseMs: number;
  readonly maxSubscriptionBytes: number;
  private readonly idleTimeoutMs: number;
  private readonly maxPerCaller: number;
  private readonly maxTotal: number;
  private readonly maxEvents: number;
  private readonly maxEventBytes: number;
  /** What each session of an identified caller keeps: its share of the caller's budget. */
  private readonly maxEventBytesOfCaller: number;
  private readonly maxInitializeBytes: number;
  private readonly streams = new Map<
    string,
    { stream: SessionStream; writer: StreamWriter; scopes: ReadonlySet<string> }
  >();
  private readonly stopListening: () => void;
  // Stream names: unique per instance by a counter, across instances by a random prefix. Only the session's owner
  // can resume a stream, so a name needs no secrecy, and a fresh random one per call costs what the call does.
  private readonly streamPrefix = randomBytes(6).toString('hex');
  private streamCount = 0;
  // The owner digest of the last caller: most traffic is one caller at a time (often the anonymous one).
  private lastOwner: { caller: Caller; owner: string } | undefined;

  constructor(
    private readonly server: string,
    options: LegacySessionOptions,
    subscribe: (listener: (event: McpBusEvent) => void) => () => void,
  ) {
    this.idleTimeoutMs = positive('legacy.sessions.idleTimeoutMs', options.idleTimeoutMs ?? 30 * 60_000);
    this.maxPerCaller = positive('legacy.sessions.maxPerCaller', options.maxPerCaller ?? 10);
    this.maxTotal = positive('legacy.sessions.maxTotal', options.maxTotal ?? 10_000);
    this.maxEvents = positive('legacy.sessions.maxEventsPerSession', options.maxEventsPerSession ?? 100);
    this.maxEventBytes = positive('legacy.sessions.maxEventBytesPerSession', options.maxEventBytesPerSession ?? MIB);
    const perCaller = positive('legacy.sessions.maxEventBytesPerCaller', options.maxEventBytesPerCaller ?? 4 * MIB);
    this.maxEventBytesOfCaller = Math.min(this.maxEventBytes, Math.floor(perCaller / this.maxPerCaller));
    this.maxSubscriptionBytes = positive(
      'legacy.sessions.maxSubscriptionBytes',
      options.maxSubscriptionBytes ?? 64 * KIB,
    );
    this.maxInitializeBytes = positive('legacy.sessions.maxInitializeBytes', options.maxInitializeBytes ?? 16 * KIB);
    this.maxStreamsPerSession = positive('legacy.sessions.maxStreamsPerSession', options.maxStreamsPerSession ?? 4);
    this.retryMs = positive('legacy.sessions.retryMs', options.retryMs ?? 1_000);
    this.streamLeaseMs = positive('legacy.sessions.streamLeaseMs', options.streamLeaseMs ?? 30_000);
    this.store = options.store ?? new InMemorySessionStore();
    this.stopListening = subscribe((event) => this.fanOut(event));
  }

  /** GET streams open on this instance. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Mints the session of an answered `initialize`; a refusal when the caller or the server has too many. */
  async open(
    caller: Caller,
    protocolVersion: string,
    params: Record<string, unknown> | undefined,
  ): Promise<SessionRecord | SessionRefusal> {
    const clientCapabilities = isPlainObject(params?.capabilities) ? (params.capabilities as ClientCapabilities) : {};
    const clientInfo = isPlainObject(params?.clientInfo) ? (params.clientInfo as unknown as Implementation) : undefined;
    // Kept for the session's whole life, and sent with each of its calls: refused whole rather than cut.
    if (Buffer.byteLength(JSON.stringify([clientCapabilities, clientInfo ?? null])) > this.maxInitializeBytes)
      return {
        status: 400,
        code: ErrorCode.InvalidParams,
        message: `Invalid params: initialize's capabilities and clientInfo exceed ${this.maxInitializeBytes} bytes`,
      };
    const identified = typeof caller === 'string';
    const record: SessionRecord = {
      id: randomBytes(24).toString('base64url'),
      owner: this.owner(caller),
      protocolVersion,
      clientCapabilities,
      clientInfo,
      lastActivity: Date.now(),
      idleTimeoutMs: this.idleTimeoutMs,
      maxEvents: this.maxEvents,
      maxEventBytes: identified ? this.maxEventBytesOfCaller : this.maxEventBytes,
    };
    // Anonymous callers (and principals that identify nobody) share one owner: only the total bounds them.
    const maxPerCaller = identified ? this.maxPerCaller : Number.MAX_SAFE_INTEGER;
    const admission = await this.store.create(record, { maxPerCaller, maxTotal: this.maxTotal });
    if (admission === 'caller-full')
      return { status: 429, message: `Too many sessions: this caller already has ${this.maxPerCaller}; end one first` };
    if (admission === 'full') return { status: 503, message: 'Server busy: too many sessions, retry later' };
    return record;
  }

  /** The live session a request names, when it is the caller's own. */
  async resolve(id: string | undefined, caller: Caller): Promise<SessionRecord | SessionRefusal> {
    if (id === undefined) return MISSING;
    const record = await this.store.get(id);
    if (!record || record.owner !== this.owner(caller)) return UNKNOWN_SESSION;
    return record;
  }

  /** Ends the caller's session everywhere (DELETE). */
  async end(id: string | undefined, caller: Caller): Promise<SessionRefusal | undefined> {
    const record = await this.resolve(id, caller);
    if ('status' in record) return record;
    await this.store.delete(record.id);
    return undefined;
  }

  /** Adds a `resources/subscribe` URI to a session (at most `max`, `maxSubscriptionBytes` in all), in the store. */
  subscribe(record: SessionRecord, uri: string, max: number): Promise<SubscribeOutcome> {
    return this.store.subscribe(record.id, normalizeUri(uri), max, this.maxSubscriptionBytes);
  }

  /** Removes a `resources/unsubscribe` URI of a session; false when the session is gone. */
  unsubscribe(record: SessionRecord, uri: string): Promise<boolean> {
    return this.store.unsubscribe(record.id, normalizeUri(uri));
  }

  /**
   * A new stream of `session`, named for its kind: `g` a GET stream, `p` a POST's. A GET resuming a `g` stream
   * becomes the session's GET stream again; one resuming a `p` stream follows that call to its response.
   */
  stream(session: SessionRecord, kind: 'g' | 'p'): SessionStream {
    const name = `${kind}${this.streamPrefix}${(++this.streamCount).toString(16)}`;
    return new SessionStream(this.store, session.id, name);
  }

  /** Registers a GET stream open here, which gets the events its caller may see; call the result when it ends. */
  attach(stream: SessionStream, scopes: readonly string[] | undefined, writer: StreamWriter): () => void {
    const key = `${stream.sessionId}\u0000${stream.name}`;
    this.streams.set(key, { stream, writer, scopes: new Set(scopes ?? []) });
    return () => this.streams.delete(key);
  }

  close(): Promise<void> {
    this.stopListening();
    this.streams.clear();
    return this.store.close();
  }

  private owner(caller: Caller): string {
    if (!this.lastOwner || this.lastOwner.caller !== caller)
      this.lastOwner = { caller, owner: canonicalDigest([this.server, caller ?? null]) };
    return this.lastOwner.owner;
  }

  private fanOut(event: McpBusEvent): void {
    // Events (SEP-3415) are a 2026-07-28 extension: a 2025-era session is never told its list changed.
    if (event.type === 'tasks/status' || event.type === 'events/list_changed' || this.streams.size === 0) return;
    for (const open of this.streams.values()) {
      const { stream, writer } = open;
      if (event.type === 'resources/updated') {
        const uri = normalizeUri(event.uri);
        void this.store.subscribed(stream.sessionId, uri).then(
          (subscribed) => {
            if (subscribed) writer(stream.event(notification('notifications/resources/updated', { uri: event.uri })));
          },
          () => undefined,
        );
        continue;
      }
      if (hasScopes(event.requiredScopes, open.scopes))
        writer(stream.event(notification(`notifications/${event.type}`)));
    }
  }
}

/**
 * One stream of a session (a POST's SSE response, or the GET stream): numbers its messages as SSE ids
 * (`<name>_<seq>`) and keeps each in the store, so a client that lost the stream resumes it with a GET that
 * names the last id it saw. Appends are chained, so they land in the order they were numbered.
 */
export class SessionStream {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: SessionStore,
    readonly sessionId: string,
    readonly name: string,
  ) {}

  private seq = 0;

  /** The id of the priming event: before every message (seq 0), so resuming from it replays them all. */
  get primingId(): string {
    return `${this.name}_0`;
  }

  /** Numbers a message (its JSON text) and keeps it for a resuming client. */
  event(data: string): SessionEvent {
    const event: SessionEvent = { id: `${this.name}_${++this.seq}`, data };
    // A store that cannot keep it (Redis down) loses only the replay: the live stream still gets the message.
    this.chain = this.chain.then(() => this.store.append(this.sessionId, event)).catch(() => undefined);
    return event;
  }
}

function notification(method: string, params?: Record<string, unknown>): string {
  const message: JsonRpcNotification = { jsonrpc: '2.0', method };
  if (params) message.params = params;
  return JSON.stringify(message);
}

const KIB = 1024;
const MIB = 1024 * KIB;

function positive(option: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new McpConfigurationError(NOT_POSITIVE_INTEGER(option, value));
  return value;
}
