import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { MCPServer, McpModule } from '../../src/index.js';
import {
  McpRedisBackends,
  McpRedisConnections,
  McpRedisModule,
  RedisEventBus,
  RedisRequestStateStore,
} from '../../src/redis/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { CONFIRM_SCHEMA, FLEET_SECRET, until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';

// Real Redis servers, started, killed and restarted, on a machine shared with other work.
jest.setTimeout(30_000);

const CAPS = { clientCapabilities: { elicitation: {} } };

/** Stands in for @nestjs/config's ConfigService. */
@Injectable()
class FakeConfigService {
  constructor(readonly values: Record<string, string>) {}
  getOrThrow(key: string): string {
    return this.values[key];
  }
}

function configModule(values: Record<string, string>) {
  @Module({
    providers: [{ provide: FakeConfigService, useValue: new FakeConfigService(values) }],
    exports: [FakeConfigService],
  })
  class FakeConfigModule {}
  return FakeConfigModule;
}

describe('McpRedisModule', () => {
  const inspector = new Redis(MACHINE_REDIS_URL);
  afterAll(() => inspector.disconnect());

  it('takes its URL and key prefix from configuration (forRootAsync) and hands every backend to McpModule.forRootAsync', async () => {
    const keyPrefix = testKeyPrefix();
    const Config = configModule({ REDIS_URL: MACHINE_REDIS_URL, REDIS_PREFIX: keyPrefix });
    const app = await createApp([
      McpRedisModule.forRootAsync({
        imports: [Config],
        inject: [FakeConfigService],
        useFactory: (config: FakeConfigService) => ({
          url: config.getOrThrow('REDIS_URL'),
          keyPrefix: config.getOrThrow('REDIS_PREFIX'),
        }),
      }),
      McpModule.forRootAsync({
        inject: [McpRedisBackends],
        useFactory: (redis: McpRedisBackends) => ({
          name: 'configured',
          version: '1.0.0',
          ...redis,
          requestState: { ...redis.requestState, secret: FLEET_SECRET },
        }),
      }),
    ]);
    try {
      const backends = app.get(McpRedisBackends);
      expect(backends.listen.eventBus).toBeInstanceOf(RedisEventBus);
      expect(backends.requestState.store).toBeInstanceOf(RedisRequestStateStore);
      await until(() => app.get(McpRedisConnections).ready, 'connected');
      app.get(MCPServer).addTool({
        name: 'once',
        description: 'Single use',
        inputSchema: { type: 'object' },
        singleUseState: true,
        handler: async (_args, _answers, ctx) => (await ctx.elicit('Sure?', CONFIRM_SCHEMA)).action,
      });
      const first = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'once', arguments: {} }, CAPS),
      );
      expect(first.status).toBe(200);
      const answers = {
        [Object.keys(first.body.result.inputRequests)[0]]: { action: 'accept', content: { ok: true } },
      };
      const retry = { inputResponses: answers, requestState: first.body.result.requestState };
      const retried = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'once', arguments: {}, ...retry }, CAPS),
      );
      expect(retried.status).toBe(200);
      expect(retried.body.result.content[0].text).toBe('accept');
      // The consumed id is in Redis under the configured prefix, with an expiry.
      const keys = await inspector.keys(`${keyPrefix}state:*`);
      expect(keys).toHaveLength(1);
      expect(await inspector.pttl(keys[0])).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });

  it("shares the app's own connection without ever closing it, and closes the pub/sub duplicate it opened", async () => {
    const own = new Redis(MACHINE_REDIS_URL);
    const app = await createApp([McpRedisModule.forRoot({ connection: own, keyPrefix: testKeyPrefix() })]);
    const connections = app.get(McpRedisConnections);
    expect(connections.commands).toBe(own);
    expect(connections.subscriber).not.toBe(own);
    await until(() => app.get(McpRedisBackends).listen.eventBus.listening, 'subscribed on the duplicate');
    await app.close();
    expect(connections.subscriber.status).toBe('end');
    expect(await own.ping()).toBe('PONG');
    own.disconnect();
  });

  it("subscribes on the app's own pub/sub connection when given one, and leaves it open", async () => {
    const own = new Redis(MACHINE_REDIS_URL);
    const subscriber = new Redis(MACHINE_REDIS_URL);
    const app = await createApp([McpRedisModule.forRoot({ connection: own, subscriber, keyPrefix: testKeyPrefix() })]);
    expect(app.get(McpRedisConnections).subscriber).toBe(subscriber);
    await until(() => app.get(McpRedisBackends).listen.eventBus.listening, 'subscribed');
    await app.close();
    expect(subscriber.status).toBe('ready');
    // Unsubscribed at shutdown, so the connection can run ordinary commands again.
    await until(
      async () => (await subscriber.ping().catch(() => 'subscribed')) === 'PONG',
      'the subscriber left subscriber mode',
    );
    own.disconnect();
    subscriber.disconnect();
  });

  it('refuses options with neither a URL nor a connection', async () => {
    await expect(createApp([McpRedisModule.forRoot({ keyPrefix: 'x:' })])).rejects.toThrow(
      'McpRedisModule needs a "url", a "cluster" or a "connection"',
    );
  });
});
