import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Redis } from 'ioredis';
import { MCPServer, McpModule, type McpModuleOptions } from '../../src/index.js';
import { McpRedisConnections, RedisTaskStore, type McpRedisOptions } from '../../src/redis/index.js';
import { RedisClusterProcesses } from '../support/redis-cluster.js';
import { createApp } from '../support/create-app.js';
import { HeaderUserGuard } from '../support/header-user-guard.js';
import { until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { createTask, waitForStatus } from '../support/task-requests.js';

/**
 * Bounded task memory (security round 2, finding 4): a result over `tasks.maxResultBytes`, or one that takes a
 * caller's kept results past `tasks.maxResultBytesPerCaller`, ends its task `failed` with a message saying
 * which limit, in the in-memory store and in Redis alike; another caller's results are unaffected.
 */
const MIB = 1024 * 1024;

async function appWith(tasks: McpModuleOptions['tasks']): Promise<INestApplication> {
  const app = await createApp(
    [
      McpModule.forRoot({
        name: 'results',
        version: '1.0.0',
        auth: { identify: (user: { id: string }) => user.id },
        tasks: { maxResultBytes: MIB, maxResultBytesPerCaller: 2 * MIB, ...tasks },
      }),
    ],
    [{ provide: APP_GUARD, useClass: HeaderUserGuard }],
  );
  app.get(MCPServer).addTool({
    name: 'report',
    description: 'Returns `kib` KiB of text, as a task',
    inputSchema: { type: 'object', properties: { kib: { type: 'number' } } },
    taskSupport: 'required',
    handler: (args: { kib: number }) => 'x'.repeat(args.kib * 1024),
  });
  return app;
}

/** A Redis task store on `options`' connections, closed with them, then `cleanUp`. */
async function redisStore(
  options: McpRedisOptions,
  cleanUp: () => Promise<void>,
): Promise<{ tasks: McpModuleOptions['tasks']; close(): Promise<void> }> {
  const connections = McpRedisConnections.open(options);
  const store = new RedisTaskStore(connections);
  await until(() => connections.ready && store.listening, 'the store is connected and listens for signals');
  return {
    tasks: { store },
    close: async () => {
      store.close();
      await connections.close();
      await cleanUp();
    },
  };
}

const stores: Array<[string, () => Promise<{ tasks: McpModuleOptions['tasks']; close(): Promise<void> }>]> = [
  ['in memory', async () => ({ tasks: {}, close: async () => undefined })],
  [
    'in Redis',
    () => {
      const keyPrefix = testKeyPrefix();
      return redisStore({ url: MACHINE_REDIS_URL, keyPrefix }, async () => {
        const inspector = new Redis(MACHINE_REDIS_URL);
        const keys = await inspector.keys(`${keyPrefix}*`);
        if (keys.length > 0) await inspector.del(...keys);
        inspector.disconnect();
      });
    },
  ],
  [
    'on a Redis Cluster',
    async () => {
      const cluster = await RedisClusterProcesses.start();
      return redisStore({ cluster: { nodes: cluster.nodes }, keyPrefix: testKeyPrefix() }, () => cluster.stop());
    },
  ],
];

describe.each(stores)('security round 2: task results are bounded in bytes (%s)', (_name, open) => {
  it('fails a result over maxResultBytes, and one past the caller’s total, leaving other callers’ alone', async () => {
    const backend = await open();
    const app = await appWith(backend.tasks);
    try {
      const as = (user: string) => ({ headers: { 'x-user': user } });
      const huge = await createTask(app, 'report', { kib: 1100 }, as('alice'));
      const failed = await waitForStatus(app, huge.taskId, 'failed', as('alice'));
      expect(failed.error.message).toMatch(
        /^Task result too large: \d+ bytes, over the limit of 1048576 \(tasks\.maxResultBytes\)$/,
      );

      for (let i = 0; i < 2; i++) {
        const kept = await createTask(app, 'report', { kib: 900 }, as('alice'));
        await waitForStatus(app, kept.taskId, 'completed', as('alice'));
      }
      const third = await createTask(app, 'report', { kib: 900 }, as('alice'));
      const refused = await waitForStatus(app, third.taskId, 'failed', as('alice'));
      expect(refused.error.message).toMatch(/this caller's tasks already keep 2097152 bytes of results/);

      const other = await createTask(app, 'report', { kib: 900 }, as('bob'));
      const done = await waitForStatus(app, other.taskId, 'completed', as('bob'));
      expect(done.result.content[0].text).toHaveLength(900 * 1024);
    } finally {
      await app.close();
      await backend.close();
    }
  });
});
