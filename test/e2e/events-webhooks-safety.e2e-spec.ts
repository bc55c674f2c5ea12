import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { McpModule, MCPServer, type McpModuleOptions } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';
import { ECHO, freshSecret, RECEIVER_CERT, WebhookReceiver } from '../support/webhook-receiver.js';

jest.setTimeout(30_000);

type Answer = { result?: Record<string, any>; error?: { code: number; message: string; data?: any } };

/** `Bearer <name>` is <name>; a name that starts with `short` holds a token that expires in two minutes. */
const AUTH = {
  resource: 'https://mcp.example.com/mcp',
  verify: (token: string) =>
    token.startsWith('short') ? { sub: token, exp: Math.floor(Date.now() / 1_000) + 120 } : { sub: token },
};
const FAST = { retryDelayMs: 10, maxRetryDelayMs: 20, minTtlMs: 50, allowHosts: ['127.0.0.1'], ca: RECEIVER_CERT };

describe('Webhook delivery: suspension, the verification rate, the body size, the credential', () => {
  let receiver: WebhookReceiver;
  const apps: INestApplication[] = [];
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await receiver.close();
  });

  async function start(webhooks: Record<string, unknown>) {
    const options = { name: 'hooks', version: '1.0.0', auth: AUTH, events: { webhooks: { ...FAST, ...webhooks } } };
    const app = await createApp([McpModule.forRoot(options as McpModuleOptions)]);
    apps.push(app);
    const server = app.get(MCPServer);
    server.addEvent({ name: 'tick', description: 'Ticks', delivery: ['webhook'] });
    const mcp = createMcpTestClient(app);
    const subscribe = async (url: string, more: Record<string, unknown> = {}, who = 'alice') => {
      const params = { name: 'tick', delivery: { url, secret: freshSecret() }, ...more };
      const reply = await mcp.post(mcpMessage('events/subscribe', params), { authorization: `Bearer ${who}` });
      return reply.body as Answer;
    };
    return { server, subscribe };
  }

  it('suspends delivery after sustained failure, says so on the refresh, which resumes it with what waits', async () => {
    let failing = true;
    const path = receiver.path('suspend', (r, attempt) =>
      r.json.type === 'verification' ? ECHO(r, attempt) : { status: failing ? 500 : 200 },
    );
    const { server, subscribe } = await start({ maxAttempts: 1, suspendAfterAttempts: 3 });
    await subscribe(receiver.url(path));
    for (const n of [1, 2, 3]) await server.publishEvent('tick', { n });
    await receiver.until(path, 1, (r) => r.json.data?.n === 3);
    // Suspended: the fourth waits, and is not tried against the failing endpoint.
    await server.publishEvent('tick', { n: 4 });
    failing = false;
    const refresh = await subscribe(receiver.url(path));
    expect(refresh.result!.deliveryStatus).toEqual({
      active: false,
      lastDeliveryAt: null,
      lastError: 'http_5xx',
      failedSince: expect.any(String),
    });
    const [fourth] = await receiver.until(path, 1, (r) => r.json.data?.n === 4);
    expect(receiver.events(path).filter((r) => r.json.data.n === 4)).toEqual([fourth]);
    const after = await subscribe(receiver.url(path));
    expect(after.result!.deliveryStatus).toMatchObject({ active: true, lastError: null });
  });

  it('sends at most maxVerificationsPerHost challenges to one host per window, then -32025', async () => {
    const { subscribe } = await start({ maxVerificationsPerHost: 2, verificationWindowMs: 60_000 });
    const paths = [1, 2, 3].map((n) => receiver.path(`host-${n}`));
    expect((await subscribe(receiver.url(paths[0]))).result).toBeDefined();
    expect((await subscribe(receiver.url(paths[1]), {}, 'bob')).result).toBeDefined();
    const third = await subscribe(receiver.url(paths[2]), {}, 'carol');
    expect(third.error).toEqual({
      code: -32025,
      message: 'Too many verification requests to this callback host',
      data: { limit: 'verificationsPerHost', max: 2, retryAfterMs: expect.any(Number) },
    });
    expect(third.error!.data.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(receiver.on(paths[2])).toEqual([]);
    // A refresh of a verified callback sends no challenge, so it is not held to the bound.
    expect((await subscribe(receiver.url(paths[0]))).result).toBeDefined();
  });

  it('sends a gap instead of an occurrence over 256 KiB, and goes on with the next', async () => {
    const path = receiver.path('big');
    const { server, subscribe } = await start({});
    await subscribe(receiver.url(path));
    await server.publishEvent('tick', { n: 1, blob: 'x'.repeat(300 * 1_024) });
    await server.publishEvent('tick', { n: 2 });
    await receiver.until(path, 1, (r) => r.json.data?.n === 2);
    const bodies = receiver.on(path).filter((r) => r.json.type !== 'verification');
    expect(bodies.map((r) => r.json.type ?? r.json.data.n)).toEqual(['gap', 2]);
    expect(bodies[0].json).toEqual({ type: 'gap', cursor: expect.any(String) });
    expect(bodies.every((r) => Buffer.byteLength(r.raw) <= 256 * 1_024)).toBe(true);
  });

  it('never grants past the caller credential: its expiry bounds the subscription', async () => {
    const { subscribe } = await start({});
    const before = Date.now();
    const short = await subscribe(receiver.url(receiver.path('credential')), { ttlMs: 3_600_000 }, 'short-lived');
    expect(Date.parse(short.result!.refreshBefore)).toBeLessThanOrEqual(before + 121_000);
    const long = await subscribe(receiver.url(receiver.path('credential')), { ttlMs: 3_600_000 });
    expect(Date.parse(long.result!.refreshBefore)).toBeGreaterThan(before + 3_000_000);
  });
});
