import 'reflect-metadata';
import { jest } from '@jest/globals';
import { McpRedisConnections, RedisSessionStore } from '../../src/redis/index.js';
import { until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { sessionStoreContract } from '../support/session-store.contract.js';

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
