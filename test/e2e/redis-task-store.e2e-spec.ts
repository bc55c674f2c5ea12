import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { McpRedisConnections, RedisTaskStore } from '../../src/redis/index.js';
import type { StoredTask, TaskSignal } from '../../src/server/task-store.js';
import { until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, RedisServerProcess, testKeyPrefix } from '../support/redis-server.js';

// Real Redis servers, started, killed and restarted, on a machine shared with other work.
jest.setTimeout(30_000);

const LIMITS = { perOwner: 10, total: 100 };
const quiet = { warn: () => undefined, log: () => undefined };

function task(taskId: string, overrides: Partial<StoredTask> = {}): StoredTask {
  return {
    taskId,
    owner: 'alice',
    createdAt: 1_000,
    lastUpdatedAt: 1_000,
    ttlMs: 60_000,
    status: 'working',
    ...overrides,
  };
}

describe('RedisTaskStore', () => {
  const opened: McpRedisConnections[] = [];
  const stores: RedisTaskStore[] = [];
  const inspector = new Redis(MACHINE_REDIS_URL);
  let clock: number;
  let keyPrefix: string;

  /** One instance's store: connections of its own, the shared prefix, the test's clock. */
  async function instance(url = MACHINE_REDIS_URL, options: { maxTtlMs?: number } = {}): Promise<RedisTaskStore> {
    const connections = McpRedisConnections.open({ url, keyPrefix }, quiet);
    opened.push(connections);
    const store = new RedisTaskStore(connections, { now: () => clock, ...options });
    stores.push(store);
    await until(() => connections.ready && store.listening, 'the store is connected and listens for signals');
    return store;
  }

  beforeEach(() => {
    clock = 1_000;
    keyPrefix = testKeyPrefix();
  });

  afterEach(async () => {
    for (const store of stores.splice(0)) store.close();
    await Promise.all(opened.splice(0).map((connections) => connections.close()));
  });

  afterAll(() => inspector.disconnect());

  it('finds a task created on one instance at once on another, for its owner only', async () => {
    const [a, b] = [await instance(), await instance()];
    expect(await a.create(task('t1'), LIMITS)).toBe('created');
    expect(await b.get('t1', 'alice')).toMatchObject({ taskId: 't1', status: 'working', owner: 'alice' });
    expect(await b.get('t1', 'mallory')).toBeUndefined();
    expect(await b.get('t2', 'alice')).toBeUndefined();
  });

  it('forgets a task once createdAt + ttlMs has passed, and never before', async () => {
    const store = await instance();
    await store.create(task('t1', { ttlMs: 500 }), LIMITS);
    clock = 1_499;
    expect(await store.get('t1', 'alice')).toBeDefined();
    clock = 1_500;
    expect(await store.get('t1', 'alice')).toBeUndefined();
    expect(await store.update('t1', (t) => ({ ...t, status: 'completed' }))).toBeUndefined();
  });

  it('puts a TTL on every key, a task with a null ttlMs included (capped by maxTtlMs)', async () => {
    const store = await instance(MACHINE_REDIS_URL, { maxTtlMs: 120_000 });
    await store.create(task('forever', { ttlMs: null }), LIMITS);
    await store.create(task('short', { ttlMs: 5_000, owner: 'bob' }), LIMITS);
    clock = 100_000;
    expect(await store.get('forever', 'alice')).toBeDefined();
    const keys = await inspector.keys(`${keyPrefix}*`);
    expect(keys.sort()).toEqual(
      [
        `${keyPrefix}task:forever`,
        `${keyPrefix}task:short`,
        `${keyPrefix}tasks`,
        `${keyPrefix}tasks-of:alice`,
        `${keyPrefix}tasks-of:bob`,
      ].sort(),
    );
    for (const key of keys) {
      const ttl = await inspector.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(120_000);
    }
  });

  it('applies an update atomically, keeps the identity fields, and never changes a terminal task', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.create(task('t1'), LIMITS);
    const updated = await b.update('t1', (t) => ({
      ...t,
      taskId: 'other',
      owner: 'mallory',
      createdAt: 0,
      ttlMs: 1,
      status: 'input_required',
      lastUpdatedAt: 2_000,
    }));
    expect(updated).toMatchObject({
      taskId: 't1',
      owner: 'alice',
      createdAt: 1_000,
      ttlMs: 60_000,
      status: 'input_required',
      lastUpdatedAt: 2_000,
    });
    expect(await a.update('t1', () => undefined)).toBeUndefined();
    expect((await a.get('t1', 'alice'))!.status).toBe('input_required');
    expect(await a.update('t1', (t) => ({ ...t, status: 'completed', result: { content: [] } }))).toMatchObject({
      status: 'completed',
    });
    // A late cancel cannot overwrite the result.
    expect(await b.update('t1', (t) => ({ ...t, status: 'cancelled' }))).toBeUndefined();
    expect(await b.get('t1', 'alice')).toMatchObject({ status: 'completed', result: { content: [] } });
  });

  it('loses no update when two instances change one task at the same time', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.create(task('counter', { statusMessage: '0' }), LIMITS);
    const bump = (t: StoredTask) => ({ ...t, statusMessage: String(Number(t.statusMessage) + 1) });
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).update('counter', bump)));
    expect((await a.get('counter', 'alice'))!.statusMessage).toBe('10');
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

  it('delivers a signal sent from another instance to the listeners of the task, until they unsubscribe', async () => {
    const [a, b] = [await instance(), await instance()];
    const received: TaskSignal[] = [];
    const unsubscribe = await a.subscribe('t1', (signal) => received.push(signal));
    await a.subscribe('t2', () => received.push({ type: 'cancel' }));
    await b.signal('t1', { type: 'input', responses: { confirm: { action: 'accept', content: { ok: true } } } });
    await b.signal('t1', { type: 'cancel' });
    await until(() => received.length === 2, 'both signals arrived');
    expect(received).toEqual([
      { type: 'input', responses: { confirm: { action: 'accept', content: { ok: true } } } },
      { type: 'cancel' },
    ]);
    await unsubscribe();
    await b.signal('t1', { type: 'cancel' });
    await b.signal('t2', { type: 'cancel' });
    await until(() => received.length === 3, 'the signal for t2 arrived');
    expect(received).toHaveLength(3);
    // Nobody listening is not an error.
    await expect(b.signal('nobody', { type: 'cancel' })).resolves.toBeUndefined();
  });

  it('fails with McpRedisUnavailableError while Redis is away, and works again once it is back', async () => {
    const redis = await RedisServerProcess.onFreePort();
    try {
      await redis.start();
      const store = await instance(redis.url);
      const connections = opened[opened.length - 1];
      await store.create(task('before'), LIMITS);
      await redis.kill();
      await expect(store.create(task('during'), LIMITS)).rejects.toThrow(/^Redis is unavailable \(create a task\)/);
      await expect(store.get('before', 'alice')).rejects.toThrow(/^Redis is unavailable \(read a task\)/);
      await until(() => !store.listening, 'the store saw the connection drop');
      await expect(store.subscribe('before', () => undefined)).rejects.toThrow(
        /^Redis is unavailable \(subscribe to task signals\)/,
      );
      await redis.start();
      // Both connections reconnect on their own schedule: listening again says nothing of the command connection.
      await until(() => connections.ready && store.listening, 'the store is connected and listens again');
      expect(await store.create(task('after'), LIMITS)).toBe('created');
      expect(await store.get('after', 'alice')).toBeDefined();
    } finally {
      await redis.kill();
    }
  });
});
