import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { McpRedisConnections, RedisTaskStore } from '../../src/redis/index.js';
import { until } from '../support/redis-fleet.js';
import { LIMITS, task, taskStoreContract } from '../support/task-store.contract.js';
import { INSTANCE_LOST, type StoredTask } from '../../src/server/tasks/task-store.js';
import { MACHINE_REDIS_URL, RedisServerProcess, testKeyPrefix } from '../support/redis-server.js';

// Real Redis servers, started, killed and restarted, on a machine shared with other work.
jest.setTimeout(30_000);

const quiet = { warn: () => undefined, log: () => undefined };

/** One instance's store: connections of its own, the shared prefix, the given clock. */
async function openStore(
  keyPrefix: string,
  now: () => number,
  options: { url?: string; maxTtlMs?: number } = {},
): Promise<{ store: RedisTaskStore; connections: McpRedisConnections; close(): Promise<void> }> {
  const { url = MACHINE_REDIS_URL, ...storeOptions } = options;
  const connections = McpRedisConnections.open({ url, keyPrefix }, quiet);
  const store = new RedisTaskStore(connections, { now, ...storeOptions });
  const close = async () => {
    store.close();
    await connections.close();
  };
  await until(() => connections.ready && store.listening, 'the store is connected and listens for signals');
  return { store, connections, close };
}

taskStoreContract('RedisTaskStore', async (now) => {
  const keyPrefix = testKeyPrefix();
  const opened: Array<{ close(): Promise<void> }> = [];
  return {
    instance: async () => {
      const instance = await openStore(keyPrefix, now);
      opened.push(instance);
      return instance.store;
    },
    close: async () => {
      await Promise.all(opened.map((instance) => instance.close()));
    },
  };
});

describe('RedisTaskStore', () => {
  const opened: Array<{ connections: McpRedisConnections; close(): Promise<void> }> = [];
  const inspector = new Redis(MACHINE_REDIS_URL);
  let clock: number;
  let keyPrefix: string;

  // A redis-server of the test's own, for what the shared one must not see or do (its scripts flushed, its
  // command counts, its ACL users), with a connection to it; both stopped after.
  async function withOwnRedis(body: (url: string, admin: Redis) => Promise<void>): Promise<void> {
    const redis = await RedisServerProcess.onFreePort();
    const admin = new Redis(redis.url, { lazyConnect: true });
    try {
      await redis.start();
      await admin.connect();
      await body(redis.url, admin);
    } finally {
      admin.disconnect();
      await redis.kill();
    }
  }

  async function instance(url = MACHINE_REDIS_URL, options: { maxTtlMs?: number } = {}): Promise<RedisTaskStore> {
    const opening = await openStore(keyPrefix, () => clock, { url, ...options });
    opened.push(opening);
    return opening.store;
  }

  beforeEach(() => {
    clock = 1_000;
    keyPrefix = testKeyPrefix();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((instance) => instance.close()));
  });

  afterAll(() => inspector.disconnect());

  it('puts a TTL on every key, a task with a null ttlMs included (capped by maxTtlMs)', async () => {
    const store = await instance(MACHINE_REDIS_URL, { maxTtlMs: 120_000 });
    await store.create(task('forever', { ttlMs: null }), LIMITS);
    await store.create(task('short', { ttlMs: 5_000, owner: 'bob', callBytes: 10 }), LIMITS);
    clock = 100_000;
    expect(await store.get('srv', 'forever', 'alice')).toBeDefined();
    const keys = await inspector.keys(`${keyPrefix}*`);
    expect(keys.sort()).toEqual(
      [
        `${keyPrefix}{task:srv:forever}`,
        `${keyPrefix}{task:srv:short}`,
        `${keyPrefix}{tasks:srv}`,
        `${keyPrefix}{tasks:srv}:of:alice`,
        `${keyPrefix}{tasks:srv}:of:bob`,
        `${keyPrefix}{tasks:srv}:kept:bob`,
        `${keyPrefix}{tasks:srv}:kept:bob:until`,
      ].sort(),
    );
    for (const key of keys) {
      const ttl = await inspector.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(120_000);
    }
  });

  it('refuses creates past the per-owner and total limits, counting only live tasks, across instances', async () => {
    const [a, b] = [await instance(), await instance()];
    const limits = { perOwner: 3, total: 5 };
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).create(task(`t${i}`), limits)),
    );
    expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'owner-limit')).toHaveLength(5);
    expect(await a.create(task('bob1', { owner: 'bob' }), limits)).toBe('created');
    expect(await b.create(task('bob2', { owner: 'bob' }), limits)).toBe('created');
    expect(await a.create(task('carol', { owner: 'carol' }), limits)).toBe('total-limit');
    clock = 1_000 + 60_000;
    expect(await a.create(task('carol', { owner: 'carol', createdAt: clock }), limits)).toBe('created');
  });

  it('leaves no record and no counted bytes of a create it refused, whichever limit refused it', async () => {
    const store = await instance();
    const limits = { perOwner: 1, total: 3, bytesPerOwner: 100 };
    expect(await store.create(task('kept'), limits)).toBe('created');
    expect(await store.create(task('over-owner', { callBytes: 10 }), limits)).toBe('owner-limit');
    expect(await store.create(task('big', { owner: 'bob', callBytes: 101 }), limits)).toBe('owner-bytes-limit');
    expect(await store.create(task('bob1', { owner: 'bob', callBytes: 10 }), limits)).toBe('created');
    expect(await store.create(task('carol1', { owner: 'carol' }), limits)).toBe('created');
    expect(await store.create(task('over-all', { owner: 'dave', callBytes: 80 }), limits)).toBe('total-limit');
    const records = (await inspector.keys(`${keyPrefix}{task:*`)).sort();
    expect(records).toEqual([
      `${keyPrefix}{task:srv:bob1}`,
      `${keyPrefix}{task:srv:carol1}`,
      `${keyPrefix}{task:srv:kept}`,
    ]);
    // Had the refused creates kept their bytes counted, these would pass the owners' shares.
    const roomier = { perOwner: 2, total: 10, bytesPerOwner: 100 };
    expect(await store.create(task('alice2', { callBytes: 100 }), roomier)).toBe('created');
    expect(await store.create(task('dave1', { owner: 'dave', callBytes: 100 }), roomier)).toBe('created');
  });

  // An instance compares its next update against the record it last wrote or read, without reading it again:
  // another instance's change in between must still be seen, and a task ended elsewhere must stay ended.
  it('applies an update over a change another instance made since this one last saw the task', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.create(task('seen'), LIMITS);
    await a.create(task('ended'), LIMITS);
    await b.update('srv', 'seen', (t) => ({ ...t, statusMessage: 'from b' }));
    await b.update('srv', 'ended', (t) => ({ ...t, status: 'cancelled', statusMessage: 'cancelled by b' }));
    const saw: Array<string | undefined> = [];
    const updated = await a.update('srv', 'seen', (t) => {
      saw.push(t.statusMessage);
      return { ...t, statusMessage: `${t.statusMessage}, then a`, lastUpdatedAt: 2_000 };
    });
    expect(saw.at(-1)).toBe('from b');
    expect(updated).toMatchObject({ statusMessage: 'from b, then a', lastUpdatedAt: 2_000 });
    expect(await b.get('srv', 'seen', 'alice')).toEqual(updated);
    expect(
      await a.update('srv', 'ended', (t) => ({ ...t, status: 'completed', result: { content: [] }, resultBytes: 20 })),
    ).toBeUndefined();
    expect(await a.get('srv', 'ended', 'alice')).toMatchObject({
      status: 'cancelled',
      statusMessage: 'cancelled by b',
    });
  });

  it('lets a result grow into the bytes that expired tasks left, and refuses it past the share', async () => {
    const [a, b] = [await instance(), await instance()];
    const limits = { perOwner: 100, total: 100, bytesPerOwner: 100 };
    const complete = (resultBytes: number) => (t: StoredTask) => ({
      ...t,
      status: 'completed' as const,
      callBytes: undefined,
      resultBytes,
    });
    expect(await a.create(task('kept', { callBytes: 10 }), limits)).toBe('created');
    for (let i = 0; i < 30; i++)
      expect(await (i % 2 ? a : b).create(task(`short${i}`, { ttlMs: 100, callBytes: 3 }), limits)).toBe('created');
    await expect(b.update('srv', 'kept', complete(11), 100)).rejects.toThrow('Task results full');
    clock = 1_100;
    expect(await b.update('srv', 'kept', complete(100), 100)).toMatchObject({ status: 'completed', resultBytes: 100 });
    expect(await a.create(task('over', { createdAt: clock, callBytes: 1 }), limits)).toBe('owner-bytes-limit');
  });

  // A user of a Redis of the test's own may write the limits' keys but not the task records (ACL), so the record
  // of a create fails after its bytes were counted: they must be given back, or the share would shrink for good.
  it('gives back the bytes of a create whose record could not be written', async () => {
    await withOwnRedis(async (url, admin) => {
      await admin.call('ACL', 'SETUSER', 'limits-only', 'on', '>pw', `~${keyPrefix}{tasks:*`, '&*', '+@all');
      const limitsOnly = await instance(url.replace('redis://', 'redis://limits-only:pw@'));
      const store = await instance(url);
      const limits = { perOwner: 10, total: 10, bytesPerOwner: 100 };
      await expect(limitsOnly.create(task('unwritten', { callBytes: 100 }), limits)).rejects.toThrow(
        /^Redis is unavailable \(create a task\)/,
      );
      expect(await store.get('srv', 'unwritten', 'alice')).toBeUndefined();
      expect(await store.create(task('whole-share', { callBytes: 100 }), limits)).toBe('created');
      expect(await store.create(task('over', { callBytes: 1 }), limits)).toBe('owner-bytes-limit');
    });
  });

  // A Redis that lost its scripts (a restart, a failover) answers NOSCRIPT and each is sent whole again, after
  // the commands sent meanwhile: here the create's admission and byte count, behind its record. The create must
  // still count its bytes, once. A Redis of the test's own, whose scripts the test may flush.
  it('counts the bytes of a create whose admission Redis no longer knew, once', async () => {
    await withOwnRedis(async (url, admin) => {
      const store = await instance(url);
      const limits = { perOwner: 10, total: 10, bytesPerOwner: 100 };
      expect(await store.create(task('before', { owner: 'bob', callBytes: 10 }), limits)).toBe('created');
      await admin.script('FLUSH');
      // Brings the byte count's script back, not the admission's.
      await store.update(
        'srv',
        'before',
        (t) => ({ ...t, status: 'completed', callBytes: undefined, resultBytes: 20 }),
        100,
      );
      expect(await store.create(task('after', { callBytes: 60 }), limits)).toBe('created');
      expect(await store.create(task('rest', { callBytes: 40 }), limits)).toBe('created');
      expect(await store.create(task('over', { callBytes: 1 }), limits)).toBe('owner-bytes-limit');
    });
  });

  // Reads the commands Redis ran, scripts' own included, from INFO commandstats: a server of the test's own, so
  // nobody else's commands count.
  it('stores a result with the same Redis commands whether the owner has 10 live tasks or 300', async () => {
    await withOwnRedis(async (url, counter) => {
      const store = await instance(url);
      const limits = { perOwner: 1_000, total: 1_000, bytesPerOwner: 1_000_000 };
      const commands = async () => {
        const info = await counter.info('commandstats');
        const calls = [...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].filter(([, name]) => name !== 'info');
        return calls.reduce((sum, [, , count]) => sum + Number(count), 0);
      };
      const storeAResult = async (id: string) => {
        const before = await commands();
        const done = await store.update('srv', id, (t) => ({ ...t, status: 'completed', resultBytes: 50 }), 1_000_000);
        expect(done).toMatchObject({ status: 'completed', resultBytes: 50 });
        return (await commands()) - before;
      };
      const fill = async (from: number, to: number) => {
        for (let i = from; i < to; i++)
          expect(await store.create(task(`t${i}`, { callBytes: 20 }), limits)).toBe('created');
      };
      // Scripts travel by SHA1: the first use of each sends it whole once (NOSCRIPT, then EVAL), outside what
      // is compared.
      await fill(0, 10);
      await storeAResult('t9');
      const atTen = await storeAResult('t0');
      await fill(10, 300);
      const atThreeHundred = await storeAResult('t1');
      expect(atTen).toBeGreaterThan(0);
      expect(atThreeHundred).toBe(atTen);
    });
  });

  // Two instances whose clocks disagree across the lapse: the renewing one (its handler alive, if slow) thinks
  // the lease holds, the reading one that it lapsed. Whichever write lands first wins, and both agree with it.
  it('lets a late renewal and the lapse race without a torn record: each outcome matches what is stored', async () => {
    const renewing = await openStore(keyPrefix, () => 1_999);
    const reading = await openStore(keyPrefix, () => 2_000);
    opened.push(renewing, reading);
    const ids = Array.from({ length: 30 }, (_, i) => `race${i}`);
    for (const id of ids) await renewing.store.create(task(id, { leaseExpiresAt: 2_000 }), { perOwner: 30, total: 30 });
    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        const renew = () => renewing.store.update('srv', id, (t) => ({ ...t, leaseExpiresAt: 3_000 }));
        const read = () => reading.store.get('srv', id, 'alice');
        // Sent in both orders, so that each side gets to be first.
        if (i % 2) return Promise.all([renew(), read()]);
        const [seen, renewed] = await Promise.all([read(), renew()]);
        return [renewed, seen] as const;
      }),
    );
    for (const [i, [renewed, seen]] of outcomes.entries()) {
      const stored = JSON.parse((await inspector.get(`${keyPrefix}{task:srv:${ids[i]}}`))!) as StoredTask;
      if (renewed) {
        expect(seen).toMatchObject({ status: 'working', leaseExpiresAt: 3_000 });
        expect(stored).toEqual(renewed);
      } else {
        expect(seen).toMatchObject({ status: 'failed', statusMessage: INSTANCE_LOST, lastUpdatedAt: 2_000 });
        expect(stored).toEqual({ ...seen, leaseExpiresAt: undefined, inputRequests: undefined });
        expect(stored).not.toHaveProperty('leaseExpiresAt');
      }
    }
  });

  it('fails with McpRedisUnavailableError while Redis is away, and works again once it is back', async () => {
    const redis = await RedisServerProcess.onFreePort();
    try {
      await redis.start();
      const store = await instance(redis.url);
      const { connections } = opened[opened.length - 1];
      await store.create(task('before'), LIMITS);
      await redis.kill();
      await expect(store.create(task('during'), LIMITS)).rejects.toThrow(/^Redis is unavailable \(create a task\)/);
      await expect(store.get('srv', 'before', 'alice')).rejects.toThrow(/^Redis is unavailable \(read a task\)/);
      await until(() => !store.listening, 'the store saw the connection drop');
      await expect(store.subscribe('srv', 'before', () => undefined)).rejects.toThrow(
        /^Redis is unavailable \(subscribe to task signals\)/,
      );
      await redis.start();
      // Both connections reconnect on their own schedule: listening again says nothing of the command connection.
      await until(() => connections.ready && store.listening, 'the store is connected and listens again');
      // The restarted server knows none of the scripts the store sends by their SHA1: each is sent whole once.
      expect(await store.create(task('after'), LIMITS)).toBe('created');
      expect(await store.update('srv', 'after', (t) => ({ ...t, statusMessage: 'again' }))).toMatchObject({
        statusMessage: 'again',
      });
      expect(await store.get('srv', 'after', 'alice')).toMatchObject({ statusMessage: 'again' });
    } finally {
      await redis.kill();
    }
  });
});
