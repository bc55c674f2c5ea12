import { randomUUID } from 'node:crypto';
import {
  ReplyCancelled,
  ReplyTimeout,
  type ClientReply,
  type PendingReply,
  type PendingRequest,
  type ReplyDelivery,
  type ReplyRouter,
} from '../../server/legacy/reply-router.js';
import { RedisChannel } from './redis-channel.js';
import type { McpRedisConnections } from './redis-connections.js';
import { McpRedisUnavailableError } from './redis-unavailable-error.js';

// KEYS[1] the pending request; ARGV: owner, the channel prefix, the message, whether PUBLISH counts every
// listener. Checks the owner, publishes the reply on the waiting instance's channel and forgets the request,
// atomically: two replies to one id, on any instances, cannot both be delivered. Nobody listening there (that
// instance is reconnecting or gone) leaves the request in place, so the client's retry can still reach it until
// the deadline. On a Redis Cluster, PUBLISH counts only the listeners on the node that runs the script, so its
// 0 proves nothing there: the reply counts as delivered.
const DELIVER = `
local pending = redis.call('GET', KEYS[1])
if not pending then return 'unknown' end
local waiting = cjson.decode(pending)
if waiting.owner ~= ARGV[1] then return 'forbidden' end
local listeners = redis.call('PUBLISH', ARGV[2] .. waiting.instance, ARGV[3])
if listeners == 0 and ARGV[4] == 'counted' then return 'unknown' end
redis.call('DEL', KEYS[1])
return 'delivered'
`;

interface Waiter {
  timer: NodeJS.Timeout;
  resolve(reply: ClientReply): void;
  reject(error: Error): void;
}

/**
 * The reply router over Redis: a 2025-era client's answer to an elicitation (or sampling, or roots) request
 * reaches the call that waits for it on whichever instance the answering POST lands. Each pending request is a
 * key holding its owner and the waiting instance, expiring at its deadline; each instance listens on a channel
 * of its own, where `deliver` (a script: check, publish, delete) sends the reply.
 */
export class RedisReplyRouter implements ReplyRouter {
  private readonly instance = randomUUID();
  private readonly waiting = new Map<string, Waiter>();
  private readonly channelPrefix: string;
  private readonly channel: RedisChannel;

  constructor(private readonly redis: McpRedisConnections) {
    this.channelPrefix = redis.key('replies', '');
    this.channel = new RedisChannel(redis, this.channelPrefix + this.instance, (message) => this.receive(message));
  }

  get size(): number {
    return this.waiting.size;
  }

  /** True while this instance can receive replies that land elsewhere (for readiness checks). */
  get listening(): boolean {
    return this.channel.listening;
  }

  async register({ id, owner, expiresAt }: PendingRequest): Promise<PendingReply> {
    if (this.waiting.has(id)) throw new Error(`A server request with id ${id} is already waiting: ids must be unique`);
    // A reply published before this instance listens would be lost: better to fail the call now.
    if (!this.channel.listening)
      throw new McpRedisUnavailableError(
        'Redis is unavailable (register a server request): not subscribed for replies',
      );
    const ttlMs = Math.max(expiresAt - Date.now(), 1);
    const stored = await this.redis.run('register a server request', (redis) =>
      redis.set(this.key(id), JSON.stringify({ owner, instance: this.instance }), 'PX', ttlMs, 'NX'),
    );
    if (stored !== 'OK') throw new Error(`A server request with id ${id} is already waiting: ids must be unique`);
    let waiter!: Waiter;
    const reply = new Promise<ClientReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.settle(id, waiter)) {
          this.forget(id);
          reject(new ReplyTimeout(id));
        }
      }, ttlMs);
      timer.unref();
      waiter = { timer, resolve, reject };
    });
    reply.catch(() => undefined);
    this.waiting.set(id, waiter);
    return {
      reply,
      cancel: async () => {
        if (!this.settle(id, waiter)) return;
        waiter.reject(new ReplyCancelled(id));
        this.forget(id);
      },
    };
  }

  async deliver(id: string, owner: string, reply: ClientReply): Promise<ReplyDelivery> {
    const message = JSON.stringify({ id, reply });
    const outcome = (await this.redis.run('deliver a client reply', (redis) =>
      redis.eval(
        DELIVER,
        1,
        this.key(id),
        owner,
        this.channelPrefix,
        message,
        this.redis.commands.isCluster ? 'local' : 'counted',
      ),
    )) as ReplyDelivery;
    // The call may wait here: settled now, it cannot be withdrawn between this answer and the published copy,
    // which then finds nothing to settle.
    const waiter = this.waiting.get(id);
    if (outcome === 'delivered' && waiter && this.settle(id, waiter)) waiter.resolve(reply);
    return outcome;
  }

  async close(): Promise<void> {
    for (const [id, waiter] of [...this.waiting]) {
      this.settle(id, waiter);
      waiter.reject(new ReplyCancelled(id));
      this.forget(id);
    }
    this.channel.close();
  }

  private key(id: string): string {
    return this.redis.key('reply', id);
  }

  private receive(message: unknown): void {
    const parsed = message as { id?: unknown; reply?: unknown } | null;
    if (typeof parsed?.id !== 'string' || !isClientReply(parsed.reply)) return;
    const waiter = this.waiting.get(parsed.id);
    if (waiter && this.settle(parsed.id, waiter)) waiter.resolve(parsed.reply);
  }

  /** Takes the waiter out if it is still this id's; false when it was settled already. */
  private settle(id: string, waiter: Waiter): boolean {
    if (this.waiting.get(id) !== waiter) return false;
    this.waiting.delete(id);
    clearTimeout(waiter.timer);
    return true;
  }

  /** Drops a withdrawn request's key now; should Redis be away, its TTL does it at the deadline. */
  private forget(id: string): void {
    this.redis.run('forget a server request', (redis) => redis.del(this.key(id))).catch(() => undefined);
  }
}

function isClientReply(value: unknown): value is ClientReply {
  if (typeof value !== 'object' || value === null) return false;
  const { result, error } = value as Record<string, unknown>;
  return (typeof result === 'object' && result !== null) || (typeof error === 'object' && error !== null);
}
