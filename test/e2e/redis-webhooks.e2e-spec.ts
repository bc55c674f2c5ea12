import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import { McpModule, MCPServer } from '../../src/index.js';
import { McpRedisBackends, McpRedisConnections, McpRedisModule } from '../../src/redis/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';
import { until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { freshSecret, RECEIVER_CERT, signedWith, WebhookReceiver } from '../support/webhook-receiver.js';

jest.setTimeout(30_000);

interface Instance {
  app: INestApplication;
  server: MCPServer;
  call(method: string, params: Record<string, unknown>, who?: string): Promise<Record<string, any>>;
}

async function instance(keyPrefix: string): Promise<Instance> {
  const app = await createApp([
    McpRedisModule.forRoot({ url: MACHINE_REDIS_URL, keyPrefix }),
    McpModule.forRootAsync({
      inject: [McpRedisBackends],
      useFactory: (redis: McpRedisBackends) => ({
        name: 'hooks-fleet',
        version: '1.0.0',
        ...redis,
        auth: { resource: 'https://mcp.example.com/mcp', verify: (token: string) => ({ sub: token }) },
        events: {
          webhooks: { allowHosts: ['127.0.0.1'], ca: RECEIVER_CERT, maxSubscriptionsPerCaller: 2, retryDelayMs: 10 },
        },
      }),
    }),
  ]);
  const server = app.get(MCPServer);
  server.addEvent({ name: 'deploy.done', description: 'A deploy ended', delivery: ['webhook', 'poll'] });
  await until(() => app.get(McpRedisConnections).commands.status === 'ready', 'the instance reaches Redis');
  const mcp = createMcpTestClient(app);
  return {
    app,
    server,
    call: async (method, params, who = 'alice') =>
      (await mcp.post(mcpMessage(method, params), { authorization: `Bearer ${who}` })).body as Record<string, any>,
  };
}

describe('nestjs-mcp/redis: webhook subscriptions kept in Redis, served by every instance', () => {
  const keyPrefix = testKeyPrefix();
  let a: Instance;
  let b: Instance;
  let receiver: WebhookReceiver;
  let inspector: Redis;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    [a, b] = await Promise.all([instance(keyPrefix), instance(keyPrefix)]);
    inspector = new Redis(MACHINE_REDIS_URL);
  });
  afterAll(async () => {
    await Promise.all([a, b].map((i) => i?.app.close()));
    await receiver.close();
    const keys = await inspector.keys(`${keyPrefix}*`);
    if (keys.length > 0) await inspector.del(...keys);
    inspector.disconnect();
  });

  const params = (url: string, secret?: string) => ({
    name: 'deploy.done',
    arguments: {},
    delivery: secret ? { url, secret } : { url },
  });

  it('subscribes on A, refreshes on B, delivers once what either publishes, and ends on B', async () => {
    const [path, other] = [receiver.path('fleet'), receiver.path('fleet-other')];
    const secret = freshSecret();
    const made = await a.call('events/subscribe', { ...params(receiver.url(path), secret), ttlMs: 600_000 });
    expect(made.result).toMatchObject({ id: expect.stringMatching(/^sub_/) });
    const refreshed = await b.call('events/subscribe', { ...params(receiver.url(path), secret), ttlMs: 600_000 });
    expect(refreshed.result.id).toBe(made.result.id);
    expect(receiver.on(path).filter((r) => r.json.type === 'verification')).toHaveLength(1);
    const kept = await inspector.pttl(`${keyPrefix}{webhooks}:sub:${made.result.id}`);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(600_000);

    await b.server.publishEvent('deploy.done', { n: 1 });
    await a.server.publishEvent('deploy.done', { n: 2 });
    await receiver.until(path, 2, (r) => r.json.eventId !== undefined);
    await b.call('events/subscribe', params(receiver.url(other), freshSecret()));
    const ended = await b.call('events/unsubscribe', params(receiver.url(path)));
    expect(ended.result).toMatchObject({ resultType: 'complete' });
    await a.server.publishEvent('deploy.done', { n: 3 });
    await receiver.until(other, 1, (r) => r.json.data?.n === 3);
    const events = receiver.events(path);
    expect(events.map((r) => r.json.data.n).sort()).toEqual([1, 2]);
    expect(events.every((r) => signedWith(r, secret) && r.headers['x-mcp-subscription-id'] === made.result.id)).toBe(
      true,
    );
    expect((await a.call('events/unsubscribe', params(receiver.url(path)))).error).toMatchObject({
      code: -32023,
      data: { kind: 'subscription' },
    });
    await a.call('events/unsubscribe', params(receiver.url(other)));
  });

  it('holds a caller to maxSubscriptionsPerCaller across instances', async () => {
    const urls = [1, 2, 3].map((n) => receiver.url(`/fleet-bound-${n}`));
    expect((await a.call('events/subscribe', params(urls[0], freshSecret()), 'carol')).result).toBeDefined();
    expect((await b.call('events/subscribe', params(urls[1], freshSecret()), 'carol')).result).toBeDefined();
    expect((await a.call('events/subscribe', params(urls[2], freshSecret()), 'carol')).error).toMatchObject({
      code: -32025,
      data: { limit: 'subscriptionsPerCaller', max: 2 },
    });
    expect((await b.call('events/unsubscribe', params(urls[0]), 'carol')).result).toBeDefined();
    expect((await a.call('events/subscribe', params(urls[2], freshSecret()), 'carol')).result).toBeDefined();
  });

  it('tells a subscription once that its event type was removed, whichever instances remove it', async () => {
    for (const i of [a, b]) i.server.addEvent({ name: 'temp.fleet', description: 'Goes', delivery: ['webhook'] });
    const path = receiver.path('fleet-terminated');
    await a.call('events/subscribe', { ...params(receiver.url(path), freshSecret()), name: 'temp.fleet' });
    a.server.removeEvent('temp.fleet');
    b.server.removeEvent('temp.fleet');
    await receiver.until(path, 1, (r) => r.json.type === 'terminated');
    // A later event on the same path proves nothing else was on its way: one more subscription, one delivery.
    await a.call('events/subscribe', params(receiver.url(path), freshSecret()));
    await b.server.publishEvent('deploy.done', { n: 4 });
    await receiver.until(path, 1, (r) => r.json.data?.n === 4);
    expect(receiver.on(path).filter((r) => r.json.type === 'terminated')).toHaveLength(1);
  });
});
