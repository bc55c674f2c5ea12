import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { McpRedisConnections, RedisReplyRouter } from '../../src/redis/index.js';
import { replyRouterContract } from '../support/reply-router.contract.js';
import { until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, RedisServerProcess, testKeyPrefix } from '../support/redis-server.js';

// Real Redis servers, started, killed and restarted, on a machine shared with other work.
jest.setTimeout(30_000);

const quiet = { warn: () => undefined, log: () => undefined };
const opened: McpRedisConnections[] = [];
const connectionsOf = new WeakMap<RedisReplyRouter, McpRedisConnections>();

/** A router on connections of its own, as one instance would have, subscribed before it is handed out. */
async function routerOn(url: string, keyPrefix: string): Promise<RedisReplyRouter> {
  const connections = McpRedisConnections.open({ url, keyPrefix }, quiet);
  opened.push(connections);
  const router = new RedisReplyRouter(connections);
  connectionsOf.set(router, connections);
  await until(() => router.listening, 'the router listens for replies');
  return router;
}

afterAll(() => Promise.all(opened.map((connections) => connections.close())));

// Every router of one contract test shares a fresh prefix; the peer is a second instance on its own connections.
let prefix = testKeyPrefix();
replyRouterContract(
  'RedisReplyRouter',
  () => routerOn(MACHINE_REDIS_URL, (prefix = testKeyPrefix())),
  () => routerOn(MACHINE_REDIS_URL, prefix),
);

describe('RedisReplyRouter across instances and outages', () => {
  const inspector = new Redis(MACHINE_REDIS_URL);
  afterAll(() => inspector.disconnect());
  const ANSWER = { result: { action: 'accept', content: { ok: true } } };

  it('delivers exactly one of several concurrent replies to one request, from three instances', async () => {
    const keyPrefix = testKeyPrefix();
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => routerOn(MACHINE_REDIS_URL, keyPrefix)));
    const pending = await a.register({ id: 'srv-race', owner: 'o', expiresAt: Date.now() + 10_000 });
    const outcomes = await Promise.all([b, c, b, c, a].map((router) => router.deliver('srv-race', 'o', ANSWER)));
    expect(outcomes.filter((outcome) => outcome === 'delivered')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'unknown')).toHaveLength(4);
    await expect(pending.reply).resolves.toEqual(ANSWER);
    await Promise.all([a, b, c].map((router) => router.close()));
  });

  it('keeps each pending request in Redis only until its deadline', async () => {
    const keyPrefix = testKeyPrefix();
    const router = await routerOn(MACHINE_REDIS_URL, keyPrefix);
    const pending = await router.register({ id: 'srv-ttl', owner: 'o', expiresAt: Date.now() + 5_000 });
    const ttl = await inspector.pttl(`${keyPrefix}reply:srv-ttl`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    await pending.cancel();
    await until(
      async () => (await inspector.exists(`${keyPrefix}reply:srv-ttl`)) === 0,
      'a withdrawn request is deleted',
    );
    await router.close();
  });

  it('refuses to register while Redis is away, and routes again once it is back', async () => {
    const redis = await RedisServerProcess.onFreePort();
    const keyPrefix = testKeyPrefix();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await redis.start();
      const [a, b] = [await routerOn(redis.url, keyPrefix), await routerOn(redis.url, keyPrefix)];
      const waiting = await a.register({ id: 'srv-before', owner: 'o', expiresAt: Date.now() + 60_000 });

      await redis.kill();
      await expect(a.register({ id: 'srv-down', owner: 'o', expiresAt: Date.now() + 60_000 })).rejects.toThrow(
        /^Redis is unavailable/,
      );
      await expect(b.deliver('srv-before', 'o', ANSWER)).rejects.toThrow(
        /^Redis is unavailable \(deliver a client reply\)/,
      );

      const restarted = Date.now();
      await redis.start();
      // Listening is the subscriber connection's; a register also needs the command connection back.
      const ready = (router: RedisReplyRouter) => router.listening && connectionsOf.get(router)!.ready;
      await until(() => ready(a) && ready(b), 'both routers listen and take commands again');
      console.log(
        `reply router recovery after a Redis restart: ${Date.now() - restarted} ms until both instances listened again`,
      );
      // The restarted Redis lost the request that waited through the crash; its call times out in the end.
      expect(await b.deliver('srv-before', 'o', ANSWER)).toBe('unknown');
      expect(a.size).toBe(1);
      await waiting.cancel();
      const fresh = await a.register({ id: 'srv-after', owner: 'o', expiresAt: Date.now() + 60_000 });
      expect(await b.deliver('srv-after', 'o', ANSWER)).toBe('delivered');
      await expect(fresh.reply).resolves.toEqual(ANSWER);
      await Promise.all([a.close(), b.close()]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await redis.kill();
    }
  });
});
