import type {
  SessionAdmission,
  SessionEvent,
  SessionEventListener,
  SessionRecord,
  SessionStore,
  SubscribeOutcome,
} from '../../server/sessions/session-store.js';
import { parseEventId, SessionWatchers } from '../../server/sessions/session-store.js';
import { RedisAdmission, type AdmissionIndexes } from './redis-admission.js';
import { RedisChannel } from './redis-channel.js';
import type { McpRedisConnections } from './redis-connections.js';

// Every expiry is relative (PX), so Redis' clock decides none. A session's own keys share its hash slot; the
// indexes that count sessions for the caps share another (see RedisAdmission).
// KEYS: record, events, subscriptions, sizes (a hash: bytes of events and of subscriptions). ARGV: idle ms.
const TOUCH = `
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return 1
`;
// KEYS: owner's sessions, all sessions. ARGV: id, idle ms, now. Each index lives as long as its longest-lived
// session, as RedisAdmission left it.
const TOUCH_INDEXES = `
local expires = tonumber(ARGV[3]) + tonumber(ARGV[2])
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], 'XX', expires, ARGV[1])
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
return 1
`;
// KEYS: record, subscriptions (a set), sizes. ARGV: uri, max, max bytes (-1: none). One script, so concurrent
// subscribes never pass a cap.
const SUBSCRIBE = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 'gone' end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 'subscribed' end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'full' end
local bytes = tonumber(redis.call('HGET', KEYS[3], 'subscriptions') or '0') + string.len(ARGV[1])
if tonumber(ARGV[3]) >= 0 and bytes > tonumber(ARGV[3]) then return 'full' end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], 'subscriptions', bytes)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
return 'subscribed'
`;
// KEYS: record, subscriptions, sizes. ARGV: uri.
const UNSUBSCRIBE = `
if redis.call('PTTL', KEYS[1]) <= 0 then return 0 end
if redis.call('SREM', KEYS[2], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[3], 'subscriptions', -string.len(ARGV[1]))
end
return 1
`;
// KEYS: record, events, sizes. ARGV: event JSON, channel, message to publish. The oldest events go while the
// list holds more than maxEvents or more than maxEventBytes: one larger than that is published, never kept.
const APPEND = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
local record = cjson.decode(redis.call('GET', KEYS[1]))
local maxBytes = tonumber(record.maxEventBytes) or -1
local count = redis.call('RPUSH', KEYS[2], ARGV[1])
local bytes = redis.call('HINCRBY', KEYS[3], 'events', string.len(ARGV[1]))
while count > 0 and (count > record.maxEvents or (maxBytes >= 0 and bytes > maxBytes)) do
  bytes = redis.call('HINCRBY', KEYS[3], 'events', -string.len(redis.call('LPOP', KEYS[2])))
  count = count - 1
end
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;
// KEYS: record, claim. ARGV: holder, lease ms. The lease, not the session's idle timeout, bounds how long an
// instance that died holding the claim keeps it.
const CLAIM = `
if redis.call('PTTL', KEYS[1]) <= 0 then return 0 end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
`;
// KEYS: record, claim. ARGV: holder, lease ms.
const RENEW = `
if redis.call('PTTL', KEYS[1]) <= 0 then return 0 end
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;
// KEYS: claim. ARGV: holder. A holder whose lease lapsed must not drop the claim another instance took since.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;
// KEYS: record, events, subscriptions, sizes. ARGV: channel, message.
const DELETE = `
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`;

/**
 * 2025-era sessions in Redis, so any instance serves any session: a record per session (JSON, expiring after
 * its idle timeout, renewed by each use), its stream events in a list capped in count and bytes, its
 * subscriptions (a set, read one URI at a time), the bytes of both (a hash), a sorted set
 * per owner and one for all that count live sessions for the caps, and a claim key per open stream (its holder, expiring after a lease the holder renews). Appends and
 * deletes are published on one channel, which every instance's watchers hear. When Redis cannot answer, a
 * session call fails with `McpRedisUnavailableError`, which the HTTP layer answers with 503. On a Redis Cluster
 * a session's keys share a hash slot and the caps' indexes another, so creating, renewing and ending a session
 * are two steps each: the session's keys, then the indexes (an index entry left behind when the second step
 * fails lapses with the idle timeout it was given).
 */
export class RedisSessionStore implements SessionStore {
  private readonly channel: RedisChannel;
  private readonly watchers = new SessionWatchers();
  private readonly admission: RedisAdmission;

  constructor(
    private readonly redis: McpRedisConnections,
    private readonly now: () => number = Date.now,
  ) {
    this.admission = new RedisAdmission(redis);
    this.channel = new RedisChannel(redis, redis.key('session-events'), (message) => this.received(message));
  }

  /** True while the channel of session events is subscribed. */
  get listening(): boolean {
    return this.channel.listening;
  }

  async create(session: SessionRecord, limits: { maxPerCaller: number; maxTotal: number }): Promise<SessionAdmission> {
    const now = this.now();
    const indexes = this.indexes(session.owner);
    const admitted = await this.admission.admit(
      'create a session',
      indexes,
      { id: session.id, expiresAt: now + session.idleTimeoutMs, ttlMs: session.idleTimeoutMs, now },
      { perOwner: limits.maxPerCaller, total: limits.maxTotal },
    );
    if (admitted !== 'admitted') return admitted === 'owner' ? 'caller-full' : 'full';
    await this.admission.record(indexes, session.id, () =>
      this.redis.run('create a session', (redis) =>
        redis.set(this.record(session.id), JSON.stringify(session), 'PX', session.idleTimeoutMs),
      ),
    );
    return 'created';
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const raw = await this.redis.run('read a session', (redis) => redis.get(this.record(id)));
    if (!raw) return undefined;
    const record = JSON.parse(raw) as SessionRecord;
    record.lastActivity = this.now();
    const touched = await this.redis.run('renew a session', (redis) =>
      redis.eval(TOUCH, 4, ...this.sessionKeys(id), record.idleTimeoutMs),
    );
    if (touched !== 1) return undefined;
    const { owner, all } = this.indexes(record.owner);
    await this.redis.run('renew a session', (redis) =>
      redis.eval(TOUCH_INDEXES, 2, owner, all, id, record.idleTimeoutMs, record.lastActivity),
    );
    return record;
  }

  async subscribe(id: string, uri: string, max: number, maxBytes = Infinity): Promise<SubscribeOutcome> {
    const bound = Number.isFinite(maxBytes) ? maxBytes : -1;
    const reply = await this.redis.run('keep a subscription', (redis) =>
      redis.eval(SUBSCRIBE, 3, this.record(id), this.subscriptions(id), this.sizes(id), uri, max, bound),
    );
    return reply as SubscribeOutcome;
  }

  async unsubscribe(id: string, uri: string): Promise<boolean> {
    const reply = await this.redis.run('drop a subscription', (redis) =>
      redis.eval(UNSUBSCRIBE, 3, this.record(id), this.subscriptions(id), this.sizes(id), uri),
    );
    return reply === 1;
  }

  async subscribed(id: string, uri: string): Promise<boolean> {
    const held = await this.redis.run('read a subscription', (redis) => redis.sismember(this.subscriptions(id), uri));
    return held === 1;
  }

  async delete(id: string): Promise<boolean> {
    const raw = await this.redis.run('read a session', (redis) => redis.get(this.record(id)));
    if (!raw) return false;
    const record = JSON.parse(raw) as SessionRecord;
    const reply = await this.redis.run('end a session', (redis) =>
      redis.eval(DELETE, 4, ...this.sessionKeys(id), this.channel.name, JSON.stringify({ s: id, end: 1 })),
    );
    if (reply !== 1) return false;
    await this.admission.withdraw(this.indexes(record.owner), id);
    return true;
  }

  async append(sessionId: string, event: SessionEvent): Promise<void> {
    const json = JSON.stringify(event);
    await this.redis.run('keep a stream event', (redis) =>
      redis.eval(
        APPEND,
        3,
        this.record(sessionId),
        `${this.record(sessionId)}:events`,
        this.sizes(sessionId),
        json,
        this.channel.name,
        JSON.stringify({ s: sessionId, e: event }),
      ),
    );
  }

  async replay(sessionId: string, stream: string, afterSeq: number): Promise<SessionEvent[]> {
    const kept = await this.redis.run('replay a stream', (redis) =>
      redis.lrange(`${this.record(sessionId)}:events`, 0, -1),
    );
    return kept
      .map((raw) => JSON.parse(raw) as SessionEvent)
      .filter((event) => {
        const at = parseEventId(event.id);
        return at !== undefined && at.stream === stream && at.seq > afterSeq;
      });
  }

  watch(sessionId: string, stream: string, listener: SessionEventListener): () => void {
    return this.watchers.add(sessionId, stream, listener);
  }

  async claimStream(sessionId: string, stream: string, holder: string, leaseMs: number): Promise<boolean> {
    const reply = await this.redis.run('claim a stream', (redis) =>
      redis.eval(CLAIM, 2, this.record(sessionId), this.claim(sessionId, stream), holder, leaseMs),
    );
    return reply === 1;
  }

  async renewStream(sessionId: string, stream: string, holder: string, leaseMs: number): Promise<boolean> {
    const reply = await this.redis.run('renew a stream claim', (redis) =>
      redis.eval(RENEW, 2, this.record(sessionId), this.claim(sessionId, stream), holder, leaseMs),
    );
    return reply === 1;
  }

  async releaseStream(sessionId: string, stream: string, holder: string): Promise<void> {
    await this.redis.run('release a stream', (redis) => redis.eval(RELEASE, 1, this.claim(sessionId, stream), holder));
  }

  async close(): Promise<void> {
    this.channel.close();
    this.watchers.clear();
  }

  private record(id: string): string {
    return this.redis.slot('session', id);
  }

  private subscriptions(id: string): string {
    return `${this.record(id)}:subscriptions`;
  }

  private claim(sessionId: string, stream: string): string {
    return `${this.record(sessionId)}:claim:${stream}`;
  }

  private sizes(id: string): string {
    return `${this.record(id)}:sizes`;
  }

  private sessionKeys(id: string): [string, string, string, string] {
    return [this.record(id), `${this.record(id)}:events`, this.subscriptions(id), this.sizes(id)];
  }

  private indexes(owner: string): AdmissionIndexes {
    const all = this.redis.slot('sessions');
    return { owner: `${all}:owner:${owner}`, all };
  }

  private received(message: unknown): void {
    const { s, e, end } = (message ?? {}) as { s?: unknown; e?: SessionEvent; end?: unknown };
    if (typeof s !== 'string') return;
    if (end) this.watchers.end(s);
    else if (typeof e?.id === 'string' && typeof e.data === 'string') this.watchers.emit(s, { id: e.id, data: e.data });
  }
}
