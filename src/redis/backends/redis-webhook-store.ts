import { createHash } from 'node:crypto';
import type { McpWebhookStore, WebhookRecord } from '../../server/domain-events/webhook-store.js';
import type { McpRedisConnections } from './redis-connections.js';
import { RedisScript } from './lua/redis-script.js';

// Keeps a record until its expiry and indexes it by event type, by caller and in the whole set (sorted by
// expiry, so what lapsed is cut from an index when it is read).
// KEYS: record, by event, by caller, all. ARGV: record JSON, id, expiresAt (ms).
const PUT = new RedisScript(
  `
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[3])
for i = 2, 4 do
  redis.call('ZADD', KEYS[i], ARGV[3], ARGV[2])
  redis.call('PEXPIREAT', KEYS[i], ARGV[3], 'GT')
  if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIREAT', KEYS[i], ARGV[3]) end
end
`,
);

// Removes a record and its index entries; 1 for the one caller that found it there.
// KEYS: record, all. ARGV: id, the key prefix of the per-event and per-caller indexes.
const DELETE = new RedisScript(
  `
local json = redis.call('GET', KEYS[1])
if not json then return 0 end
local record = cjson.decode(json)
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', ARGV[2] .. 'event:' .. record.nameKey, ARGV[1])
redis.call('ZREM', ARGV[2] .. 'caller:' .. record.caller, ARGV[1])
return 1
`,
);

// The live ids of an index, after cutting what lapsed. KEYS: the index. ARGV: now (ms).
const LIVE = new RedisScript(
  `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, -1)
`,
);

// How many a caller holds and how many are held. KEYS: by caller, all. ARGV: now (ms).
const COUNT = new RedisScript(
  `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
return { redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]) }
`,
);

/**
 * Webhook subscriptions in Redis, beside the event occurrences: a subscription made on one instance is refreshed,
 * ended and delivered to from any instance, and lapses in Redis at its expiry (`PXAT`) whoever holds it. Every
 * key is in one hash slot (`{webhooks}`), so the scripts run on a Redis Cluster too; the whole set is bounded by
 * `events.webhooks.maxSubscriptions`.
 */
export class RedisWebhookStore implements McpWebhookStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: McpRedisConnections,
    private readonly now: () => number = Date.now,
  ) {
    this.prefix = `${redis.slot('webhooks')}:`;
  }

  async get(id: string): Promise<WebhookRecord | undefined> {
    const json = await this.redis.run('read a webhook subscription', (redis) => redis.get(this.recordKey(id)));
    return json ? fromJson(json) : undefined;
  }

  async put(record: WebhookRecord): Promise<void> {
    const json = JSON.stringify({ ...record, nameKey: nameKey(record.name) });
    await this.redis.run('keep a webhook subscription', (redis) =>
      PUT.run(
        redis,
        [this.recordKey(record.id), this.eventKey(record.name), this.callerKey(record.caller), this.allKey()],
        [json, record.id, record.expiresAt],
      ),
    );
  }

  async delete(id: string): Promise<boolean> {
    const removed = await this.redis.run('end a webhook subscription', (redis) =>
      DELETE.run(redis, [this.recordKey(id), this.allKey()], [id, this.prefix]),
    );
    return removed === 1;
  }

  async ofEvent(name: string): Promise<WebhookRecord[]> {
    const ids = (await this.redis.run('list webhook subscriptions', (redis) =>
      LIVE.run(redis, [this.eventKey(name)], [this.now()]),
    )) as string[];
    if (ids.length === 0) return [];
    const records = await this.redis.run('read webhook subscriptions', (redis) =>
      redis.mget(...ids.map((id) => this.recordKey(id))),
    );
    return records.filter((json): json is string => json !== null).map(fromJson);
  }

  async count(caller: string): Promise<{ caller: number; total: number }> {
    const [held, total] = (await this.redis.run('count webhook subscriptions', (redis) =>
      COUNT.run(redis, [this.callerKey(caller), this.allKey()], [this.now()]),
    )) as [number, number];
    return { caller: held, total };
  }

  private recordKey(id: string): string {
    return `${this.prefix}sub:${id}`;
  }

  private eventKey(name: string): string {
    return `${this.prefix}event:${nameKey(name)}`;
  }

  private callerKey(caller: string): string {
    return `${this.prefix}caller:${caller}`;
  }

  private allKey(): string {
    return `${this.prefix}all`;
  }
}

/** Any event name as a safe key part. */
function nameKey(name: string): string {
  return createHash('sha256').update(name).digest('base64url').slice(0, 22);
}

function fromJson(json: string): WebhookRecord {
  const { nameKey: _key, ...record } = JSON.parse(json) as WebhookRecord & { nameKey: string };
  return record;
}
