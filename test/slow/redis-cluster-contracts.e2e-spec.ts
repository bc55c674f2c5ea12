import 'reflect-metadata';
import { jest } from '@jest/globals';
import { McpRedisConnections, RedisReplyRouter, RedisSessionStore, RedisTaskStore } from '../../src/redis/index.js';
import { RedisClusterProcesses } from '../support/redis-cluster.js';
import { until } from '../support/redis-fleet.js';
import { replyRouterContract } from '../support/reply-router.contract.js';
import { testKeyPrefix } from '../support/redis-server.js';
import { sessionStoreContract } from '../support/session-store.contract.js';
import { taskStoreContract } from '../support/task-store.contract.js';

// The stores' contracts, each instance on Cluster connections of its own, against a three-node Redis Cluster.
jest.setTimeout(30_000);

const quiet = { warn: () => undefined, log: () => undefined };
let cluster: RedisClusterProcesses;
const opened: McpRedisConnections[] = [];

beforeAll(async () => {
  cluster = await RedisClusterProcesses.start();
});
afterAll(async () => {
  await Promise.all(opened.splice(0).map((connections) => connections.close()));
  await cluster?.stop();
});

async function connect(keyPrefix: string): Promise<McpRedisConnections> {
  const connections = McpRedisConnections.open({ cluster: { nodes: cluster.nodes }, keyPrefix }, quiet);
  opened.push(connections);
  await until(() => connections.ready, 'the Cluster connections are ready');
  return connections;
}

taskStoreContract('RedisTaskStore on a Redis Cluster', async (now) => {
  const keyPrefix = testKeyPrefix();
  const stores: RedisTaskStore[] = [];
  return {
    instance: async () => {
      const store = new RedisTaskStore(await connect(keyPrefix), { now });
      stores.push(store);
      await until(() => store.listening, 'the store listens for signals');
      return store;
    },
    close: async () => stores.forEach((store) => store.close()),
  };
});

sessionStoreContract('RedisSessionStore on a Redis Cluster', async () => {
  const keyPrefix = testKeyPrefix();
  const stores: RedisSessionStore[] = [];
  return {
    instance: async () => {
      const store = new RedisSessionStore(await connect(keyPrefix));
      stores.push(store);
      await until(() => store.listening, 'the store listens');
      return store;
    },
    close: async () => {
      await Promise.all(stores.map((store) => store.close()));
    },
  };
});

async function routerOn(keyPrefix: string): Promise<RedisReplyRouter> {
  const router = new RedisReplyRouter(await connect(keyPrefix));
  await until(() => router.listening, 'the router listens for replies');
  return router;
}

let prefix = testKeyPrefix();
replyRouterContract(
  'RedisReplyRouter on a Redis Cluster',
  () => routerOn((prefix = testKeyPrefix())),
  () => routerOn(prefix),
);
