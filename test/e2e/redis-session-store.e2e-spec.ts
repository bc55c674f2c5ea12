import 'reflect-metadata';
import { jest } from '@jest/globals';
import { McpRedisConnections, RedisSessionStore } from '../../src/redis/index.js';
import { until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { session, sessionStoreContract } from '../support/session-store.contract.js';

jest.setTimeout(30_000);

const quiet = { warn: () => undefined, log: () => undefined };

// Two instances: connections of their own each, one key prefix.
sessionStoreContract('RedisSessionStore', async () => {
  const keyPrefix = testKeyPrefix();
  const opened: Array<{ store: RedisSessionStore; connections: McpRedisConnections }> = [];
  return {
    instance: async () => {
      const connections = McpRedisConnections.open({ url: MACHINE_REDIS_URL, keyPrefix }, quiet);
      const store = new RedisSessionStore(connections);
      opened.push({ store, connections });
      await until(() => connections.ready && store.listening, 'the store is connected and listens');
      return store;
    },
    close: async () => {
      for (const { store, connections } of opened) {
        await store.close();
        await connections.close();
      }
    },
  };
});

describe('RedisSessionStore caps', () => {
  it('keeps counting a session for as long as its uses keep it alive, past its first idle timeout', async () => {
    const connections = McpRedisConnections.open({ url: MACHINE_REDIS_URL, keyPrefix: testKeyPrefix() }, quiet);
    const store = new RedisSessionStore(connections);
    await until(() => connections.ready && store.listening, 'the store is connected and listens');
    try {
      const kept = session('alice', { idleTimeoutMs: 1_000 });
      expect(await store.create(kept, { maxPerCaller: 5, maxTotal: 1 })).toBe('created');
      for (let use = 0; use < 4; use++) {
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(await store.get(kept.id)).toBeDefined();
      }
      expect(await store.create(session('bob'), { maxPerCaller: 5, maxTotal: 1 })).toBe('full');
      expect(await store.create(session('alice'), { maxPerCaller: 1, maxTotal: 5 })).toBe('caller-full');
    } finally {
      await store.close();
      await connections.close();
    }
  });
});
