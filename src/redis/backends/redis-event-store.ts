import { createHash } from 'node:crypto';
import type { EventOccurrence } from '../../protocol/extensions/events.js';
import type { EventStoreRead, McpEventStore } from '../../server/domain-events/event-store.js';
import type { EventRetention } from '../../server/domain-events/occurrence-log.js';
import type { McpRedisConnections } from './redis-connections.js';
import { RedisScript } from './lua/redis-script.js';
import { RedisWebhookStore } from './redis-webhook-store.js';

// Appends an occurrence, then drops from the front whatever the retention no longer allows (count, kept bytes,
// age by the stream id's own clock), remembering the newest id it dropped so a read can tell a reader it fell
// behind. Both keys expire once nothing could be kept anyway.
// KEYS: stream, meta. ARGV: occurrence JSON, its bytes, maxCount, maxBytes, maxAgeMs.
const APPEND = new RedisScript(
  `
local id = redis.call('XADD', KEYS[1], '*', 'o', ARGV[1], 'b', ARGV[2])
local total = redis.call('HINCRBY', KEYS[2], 'bytes', ARGV[2])
local t = redis.call('TIME')
local cutoff = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[5])
local count = redis.call('XLEN', KEYS[1])
while count > 0 do
  local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  local ms = tonumber(string.match(first[1], '^(%d+)'))
  if count <= tonumber(ARGV[3]) and total <= tonumber(ARGV[4]) and ms >= cutoff then break end
  local bytes = 0
  for i = 1, #first[2], 2 do
    if first[2][i] == 'b' then bytes = tonumber(first[2][i + 1]) end
  end
  redis.call('XDEL', KEYS[1], first[1])
  redis.call('HSET', KEYS[2], 'dropped', first[1])
  total = redis.call('HINCRBY', KEYS[2], 'bytes', -bytes)
  count = count - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return id
`,
);

// The newest id, the newest dropped id, and up to ARGV[2] entries after ARGV[1], read at one instant.
const READ = new RedisScript(
  `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
local dropped = redis.call('HGET', KEYS[2], 'dropped')
local entries = redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])
return { last and last[1] or '0-0', dropped or '0-0', entries }
`,
);

const STREAM_ID = /^(\d{1,15})-(\d{1,15})$/;
type Entry = [id: string, fields: string[]];

/**
 * Event occurrences in Redis Streams, one stream per event type: `XADD` appends, a script trims to the type's
 * retention, and a read from a cursor (a stream id) is an `XRANGE` after it, so any instance serves any cursor.
 * When Redis cannot answer, publishing rejects and polls fail with -32603 (`McpRedisUnavailableError`).
 */
export class RedisEventStore implements McpEventStore {
  /** Open streams read the stream this often, for what other instances publish. */
  readonly followMs = 500;
  /** Webhook subscriptions live beside the occurrences, so every instance refreshes, ends and delivers them. */
  readonly webhooks: RedisWebhookStore;

  constructor(
    private readonly redis: McpRedisConnections,
    private readonly now: () => number = Date.now,
  ) {
    this.webhooks = new RedisWebhookStore(redis, now);
  }

  append(
    name: string,
    occurrence: EventOccurrence,
    bytes: number,
    retention: Required<EventRetention>,
  ): Promise<string> {
    const { maxCount, maxBytes, maxAgeMs } = retention;
    const body = JSON.stringify(occurrence);
    return this.redis.run('keep an event occurrence', (redis) =>
      APPEND.run(redis, this.keys(name), [body, bytes, maxCount, maxBytes, maxAgeMs]),
    ) as Promise<string>;
  }

  async head(name: string): Promise<string> {
    const [last] = await this.redis.run('read the newest event occurrence', (redis) =>
      redis.xrevrange(this.keys(name)[0], '+', '-', 'COUNT', 1),
    );
    return last?.[0] ?? '0-0';
  }

  async read(
    name: string,
    cursor: string,
    max: number,
    floor: number,
    retention: Required<EventRetention>,
  ): Promise<EventStoreRead | null> {
    if (!STREAM_ID.test(cursor)) return null;
    const [last, dropped, entries] = (await this.redis.run('read event occurrences', (redis) =>
      READ.run(redis, this.keys(name), [cursor, max + 1]),
    )) as [string, string, Entry[]];
    // A cursor past the newest id: the stream expired since it was issued, or it was never one of ours.
    if (compareIds(cursor, last) > 0) return { items: [], position: last, truncated: true, hasMore: false };
    const since = Math.max(floor, this.now() - retention.maxAgeMs);
    let truncated = compareIds(dropped, cursor) > 0;
    const items: Array<{ position: string; occurrence: EventOccurrence }> = [];
    let position = cursor;
    for (const [id, fields] of entries.slice(0, max)) {
      const occurrence = JSON.parse(fields[fields.indexOf('o') + 1]) as EventOccurrence;
      position = id;
      if (Date.parse(occurrence.timestamp) < since) truncated = true;
      else items.push({ position: id, occurrence });
    }
    const hasMore = entries.length > max;
    if (entries.length === 0) position = compareIds(last, cursor) > 0 ? last : cursor;
    return { items, position, truncated, hasMore };
  }

  /** The type's stream and its bookkeeping, in one hash slot (a digest of the name: any name is a safe key). */
  private keys(name: string): [string, string] {
    const tag = createHash('sha256').update(name).digest('base64url').slice(0, 22);
    return [this.redis.slot('events', tag) + ':log', this.redis.slot('events', tag) + ':meta'];
  }
}

/** Orders two stream ids (`<ms>-<seq>`). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am - bm || as - bs;
}
