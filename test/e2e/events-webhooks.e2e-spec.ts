import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, UseGuards, type INestApplication } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { McpEvent, McpModule, MCPServer, type McpModuleOptions } from '../../src/index.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { HeaderUserGuard } from '../support/header-user-guard.js';
import { freshSecret, RECEIVER_CERT, signedWith, WebhookReceiver } from '../support/webhook-receiver.js';

jest.setTimeout(30_000);

@Injectable()
class IncidentEvents {
  @McpEvent({
    name: 'incident.created',
    description: 'An incident was opened',
    delivery: ['webhook', 'poll'],
    payloadSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  })
  created(event: { id: string }) {
    return { id: event.id };
  }

  @McpEvent({ name: 'incident.secret', description: 'Guarded', delivery: ['webhook'] })
  @UseGuards(HeaderUserGuard)
  secret(event: { id: string }) {
    return { id: event.id };
  }

  @McpEvent({ name: 'incident.polled', description: 'Poll only', delivery: ['poll'] })
  polled(event: { id: string }) {
    return { id: event.id };
  }
}

type Answer = { status: number; result?: Record<string, any>; error?: { code: number; message: string; data?: any } };

/** Callers are whoever their bearer token names: `Bearer alice` is alice. */
const AUTH = { resource: 'https://mcp.example.com/mcp', verify: (token: string) => ({ sub: token }) };
const FAST = { retryDelayMs: 10, maxRetryDelayMs: 20, minTtlMs: 50 };

async function webhookApp(adapter: (typeof HTTP_ADAPTERS)[number], webhooks: Record<string, unknown>) {
  const options = { name: 'hooks', version: '1.0.0', auth: AUTH, events: { webhooks } } as McpModuleOptions;
  return createApp([EventEmitterModule.forRoot(), McpModule.forRoot(options)], [IncidentEvents], adapter);
}

describe.each(HTTP_ADAPTERS)('Webhook delivery (events/subscribe) on %s', (adapter) => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let server: MCPServer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await webhookApp(adapter, { ...FAST, allowHosts: ['127.0.0.1'], ca: RECEIVER_CERT, maxAttempts: 3 });
    mcp = createMcpTestClient(app);
    server = app.get(MCPServer);
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  const request = async (method: string, params: Record<string, unknown>, who: string | null = 'alice') => {
    const reply = await mcp.post(mcpMessage(method, params), who ? { authorization: `Bearer ${who}` } : {});
    return { status: reply.status, ...(reply.body as object) } as Answer;
  };
  const subscribe = (url: string, secret: string, more: Record<string, unknown> = {}, who?: string | null) =>
    request(
      'events/subscribe',
      { name: 'incident.created', arguments: {}, delivery: { mode: 'webhook', url, secret }, cursor: null, ...more },
      who,
    );
  const unsubscribe = (url: string, more: Record<string, unknown> = {}, who?: string | null) =>
    request('events/unsubscribe', { name: 'incident.created', arguments: {}, delivery: { url }, ...more }, who);

  it('verifies the endpoint with a signed challenge, then POSTs each occurrence signed, with its subscription id', async () => {
    const path = receiver.path('hook');
    const secret = freshSecret();
    const { result, error } = await subscribe(receiver.url(path), secret, { ttlMs: 3_600_000 });
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ resultType: 'complete', id: expect.stringMatching(/^sub_/), truncated: false });
    expect(Date.parse(result!.refreshBefore)).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect(result!.cursor).toEqual(expect.any(String));
    const [challenge] = receiver.on(path);
    expect(challenge.json).toEqual({ type: 'verification', challenge: expect.any(String) });
    expect(challenge.headers['webhook-id']).toMatch(/^msg_verification_/);
    expect(challenge.headers['x-mcp-subscription-id']).toBe(result!.id);
    expect(signedWith(challenge, secret)).toBe(true);

    await server.publishEvent('incident.created', { id: 'INC-1' });
    const [delivery] = await receiver.until(path, 1, (r) => r.json.eventId !== undefined);
    expect(delivery.method).toBe('POST');
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.json).toEqual({
      eventId: expect.any(String),
      name: 'incident.created',
      timestamp: expect.any(String),
      data: { id: 'INC-1' },
      cursor: expect.any(String),
    });
    expect(delivery.headers['webhook-id']).toBe(delivery.json.eventId);
    expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(delivery.headers['x-mcp-subscription-id']).toBe(result!.id);
    expect(signedWith(delivery, secret)).toBe(true);
    expect(signedWith(delivery, freshSecret())).toBe(false);

    // The payload's cursor is a poll cursor: nothing was missed after it.
    await server.publishEvent('incident.created', { id: 'INC-2' });
    const polled = await request('events/poll', { name: 'incident.created', cursor: delivery.json.cursor });
    expect(polled.result!.events.map((e: { data: unknown }) => e.data)).toEqual([{ id: 'INC-2' }]);
    await unsubscribe(receiver.url(path));
  });

  it('refreshes in place: the same id, a new secret signs beside the old one, the grant again, and status', async () => {
    const path = receiver.path('refresh');
    const [old, rotated] = [freshSecret(), freshSecret()];
    const first = await subscribe(receiver.url(path), old);
    await server.publishEvent('incident.created', { id: 'R-1' });
    await receiver.until(path, 1, (r) => r.json.eventId !== undefined);
    const again = await subscribe(receiver.url(path), rotated, { ttlMs: 120_000 });
    expect(again.result).toMatchObject({
      id: first.result!.id,
      truncated: false,
      deliveryStatus: { active: true, lastError: null, lastDeliveryAt: expect.any(String) },
    });
    expect(again.result!.cursor).toEqual(expect.any(String));
    expect(receiver.on(path).filter((r) => r.json.type === 'verification')).toHaveLength(1);
    await server.publishEvent('incident.created', { id: 'R-2' });
    const [, second] = await receiver.until(path, 2, (r) => r.json.eventId !== undefined);
    expect(second.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(signedWith(second, rotated) && signedWith(second, old)).toBe(true);
    // Another url is another subscription; an id in the params addresses nothing.
    const other = await subscribe(receiver.url(`${path}-b`), old, { id: first.result!.id });
    expect(other.result!.id).not.toBe(first.result!.id);
    await unsubscribe(receiver.url(`${path}-b`));
    await unsubscribe(receiver.url(path));
  });

  it('ends a subscription by its key; an unknown key is -32023 for a subscription', async () => {
    const [gone, kept] = [receiver.path('gone'), receiver.path('kept')];
    await subscribe(receiver.url(gone), freshSecret());
    await subscribe(receiver.url(kept), freshSecret());
    const bye = await unsubscribe(receiver.url(gone));
    expect(bye.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    await server.publishEvent('incident.created', { id: 'U-1' });
    await receiver.until(kept, 1, (r) => r.json.eventId !== undefined);
    expect(receiver.events(gone)).toEqual([]);
    const again = await unsubscribe(receiver.url(gone));
    expect(again.error).toEqual({ code: -32023, message: 'Subscription not found', data: { kind: 'subscription' } });
    // Another caller's key is not this one, whatever else matches.
    expect((await unsubscribe(receiver.url(kept), {}, 'mallory')).error).toMatchObject({ code: -32023 });
    expect((await unsubscribe(receiver.url(kept))).result).toBeDefined();
  });

  it('refuses what the SEP refuses, with its codes', async () => {
    const url = receiver.url(receiver.path('refused'));
    const secret = freshSecret();
    expect(await subscribe(url, secret, {}, null)).toMatchObject({ status: 401 });
    const insecure = await subscribe(url.replace('https:', 'http:'), secret);
    expect(insecure.error).toMatchObject({ code: -32602, message: expect.stringContaining('https') });
    for (const bad of [
      undefined,
      'not-a-secret',
      `whsec_${Buffer.alloc(8).toString('base64')}`,
      `whsec_${'%'.repeat(44)}`,
    ])
      expect((await subscribe(url, bad as string)).error).toMatchObject({ code: -32602 });
    expect((await subscribe('https://user:pw@127.0.0.1/x', secret)).error).toMatchObject({ code: -32602 });
    expect((await subscribe(`https://127.0.0.1/${'x'.repeat(2_100)}`, secret)).error).toMatchObject({ code: -32602 });
    const big = await subscribe(url, secret, { arguments: { note: 'x'.repeat(9_000) } });
    expect(big.error).toMatchObject({ code: -32602 });
    const mode = await request('events/subscribe', {
      name: 'incident.created',
      delivery: { mode: 'push', url, secret },
    });
    expect(mode.error).toMatchObject({ code: -32602 });
    const ttl = await subscribe(url, secret, { ttlMs: 'soon' });
    expect(ttl.error).toMatchObject({ code: -32602 });
    const pollOnly = await subscribe(url, secret, { name: 'incident.polled' });
    expect(pollOnly.error).toMatchObject({ code: -32026, data: { feature: 'deliveryMode', value: 'webhook' } });
    const hidden = await subscribe(url, secret, { name: 'incident.secret' });
    const unknown = await subscribe(url, secret, { name: 'incident.nope' });
    expect(hidden.status).toBe(unknown.status);
    expect(hidden.error).toEqual({ ...unknown.error, message: 'Event not found: incident.secret' });
    expect(unknown.error).toEqual({ code: -32023, message: 'Event not found: incident.nope', data: { kind: 'event' } });
  });

  it('refuses a callback that does not echo its challenge, or cannot be reached, with -32027 and a category', async () => {
    const wrong = receiver.path('wrong', () => ({ status: 200, body: JSON.stringify({ challenge: 'SECRET-ECHO' }) }));
    const answer = await subscribe(receiver.url(wrong), freshSecret());
    expect(answer.error).toEqual({
      code: -32027,
      message: 'Callback endpoint failed verification',
      data: { reason: 'challenge_failed' },
    });
    expect(JSON.stringify(answer)).not.toContain('SECRET-ECHO');
    const refusing = receiver.path('refusing', () => ({ status: 403, body: 'go away' }));
    expect((await subscribe(receiver.url(refusing), freshSecret())).error).toMatchObject({
      data: { reason: 'http_4xx' },
    });
    const closed = await WebhookReceiver.start();
    const port = closed.port;
    await closed.close();
    const unreachable = await subscribe(`https://127.0.0.1:${port}/x`, freshSecret());
    expect(unreachable.error).toMatchObject({ code: -32027, data: { reason: 'connection_refused' } });
    await server.publishEvent('incident.created', { id: 'W-1' });
    expect(receiver.events(wrong)).toEqual([]);
  });

  it('retries a failed delivery with a fresh signature each time, up to maxAttempts, and says so on refresh', async () => {
    const path = receiver.path('flaky', (r, attempt) =>
      r.json.type === 'verification'
        ? { status: 200, body: JSON.stringify({ challenge: r.json.challenge }) }
        : { status: r.json.data?.id === 'F-1' && attempt < 3 ? 503 : r.json.data?.id === 'F-2' ? 500 : 200 },
    );
    const secret = freshSecret();
    await subscribe(receiver.url(path), secret);
    for (const id of ['F-1', 'F-2', 'F-3']) await server.publishEvent('incident.created', { id });
    // In order, one at a time: F-3 arrives once F-2 was given up.
    await receiver.until(path, 1, (r) => r.json.data?.id === 'F-3');
    const tries = (id: string) => receiver.events(path).filter((r) => r.json.data?.id === id);
    expect(tries('F-1')).toHaveLength(3);
    expect(tries('F-2')).toHaveLength(3);
    expect(new Set(tries('F-1').map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(tries('F-1').every((r) => signedWith(r, secret))).toBe(true);
    const status = await subscribe(receiver.url(path), secret);
    expect(status.result!.deliveryStatus).toMatchObject({ active: true, lastError: null });
    await unsubscribe(receiver.url(path));
  });

  it('does not retry a 410 or a 413', async () => {
    const path = receiver.path('gone-410', (r) =>
      r.json.type === 'verification'
        ? { status: 200, body: JSON.stringify({ challenge: r.json.challenge }) }
        : { status: r.json.data?.id === 'G-1' ? 410 : r.json.data?.id === 'G-2' ? 413 : 200 },
    );
    await subscribe(receiver.url(path), freshSecret());
    for (const id of ['G-1', 'G-2', 'G-3']) await server.publishEvent('incident.created', { id });
    await receiver.until(path, 1, (r) => r.json.data?.id === 'G-3');
    expect(receiver.events(path).map((r) => r.json.data.id)).toEqual(['G-1', 'G-2', 'G-3']);
    await unsubscribe(receiver.url(path));
  });

  it('does not follow a redirect: a 3xx is a failed try, and the place it points to gets nothing', async () => {
    const target = receiver.path('redirect-target');
    const path = receiver.path('redirect', (r) =>
      r.json.type === 'verification'
        ? { status: 200, body: JSON.stringify({ challenge: r.json.challenge }) }
        : r.json.data?.id === 'X-1'
          ? { status: 307, headers: { location: receiver.url(target) } }
          : { status: 200 },
    );
    await subscribe(receiver.url(path), freshSecret());
    await server.publishEvent('incident.created', { id: 'X-1' });
    await server.publishEvent('incident.created', { id: 'X-2' });
    await receiver.until(path, 1, (r) => r.json.data?.id === 'X-2');
    expect(receiver.events(path).filter((r) => r.json.data.id === 'X-1')).toHaveLength(3);
    expect(receiver.on(target)).toEqual([]);
    await unsubscribe(receiver.url(path));
  });

  it('checks the guards again on a refresh, and ends the subscription of a caller they now refuse', async () => {
    const path = receiver.path('guarded');
    const params = { name: 'incident.secret', delivery: { url: receiver.url(path), secret: freshSecret() } };
    const as = (headers: Record<string, string>) =>
      mcp.post(mcpMessage('events/subscribe', params), { authorization: 'Bearer alice', ...headers });
    expect((await as({ 'x-user': 'ada' })).body.result).toMatchObject({ id: expect.any(String) });
    expect((await as({})).body.error).toEqual({
      code: -32023,
      message: 'Event not found: incident.secret',
      data: { kind: 'event' },
    });
    const after = await mcp.post(mcpMessage('events/unsubscribe', params), {
      authorization: 'Bearer alice',
      'x-user': 'ada',
    });
    expect(after.body.error).toMatchObject({ code: -32023, data: { kind: 'subscription' } });
  });

  it('ends subscriptions to a removed event type with a signed terminated envelope', async () => {
    server.addEvent({ name: 'temp.hook', description: 'Goes away', delivery: ['webhook'] });
    const path = receiver.path('terminated');
    const secret = freshSecret();
    const { result } = await subscribe(receiver.url(path), secret, { name: 'temp.hook' });
    server.removeEvent('temp.hook');
    const [envelope] = await receiver.until(path, 1, (r) => r.json.type === 'terminated');
    expect(envelope.json).toEqual({
      type: 'terminated',
      error: { code: -32023, message: 'Event removed: temp.hook', data: { kind: 'event' } },
    });
    expect(envelope.headers['webhook-id']).toMatch(/^msg_terminated_/);
    expect(envelope.headers['x-mcp-subscription-id']).toBe(result!.id);
    expect(signedWith(envelope, secret)).toBe(true);
    expect((await unsubscribe(receiver.url(path), { name: 'temp.hook' })).error).toMatchObject({ code: -32023 });
  });
});

describe('Webhook bounds and the address rule', () => {
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
    const app = await webhookApp('express', { ca: RECEIVER_CERT, ...FAST, ...webhooks });
    apps.push(app);
    const mcp = createMcpTestClient(app);
    const call = async (method: string, params: Record<string, unknown>, who = 'alice') => {
      const reply = await mcp.post(mcpMessage(method, params), { authorization: `Bearer ${who}` });
      return reply.body as Answer;
    };
    const subscribe = (url: string, more: Record<string, unknown> = {}, who = 'alice') =>
      call('events/subscribe', { name: 'incident.created', delivery: { url, secret: freshSecret() }, ...more }, who);
    return { app, server: app.get(MCPServer), call, subscribe };
  }

  it('refuses loopback and private callbacks unless allowHosts names the host or the address', async () => {
    const path = receiver.path('rule');
    const none = await start({});
    for (const url of [
      receiver.url(path),
      `https://localhost:${receiver.port}${path}`,
      'https://10.1.2.3/x',
      'https://[::1]/x',
    ])
      expect((await none.subscribe(url)).error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('not publicly routable'),
      });
    expect(receiver.on(path)).toEqual([]);
    const byName = await start({ allowHosts: ['localhost:443'] });
    expect((await byName.subscribe(receiver.url(path))).error).toMatchObject({ code: -32602 });
    const byAddress = await start({ allowHosts: ['127.0.0.1'] });
    expect((await byAddress.subscribe(receiver.url(path))).result).toMatchObject({ id: expect.any(String) });
    // A name is resolved, and the address it leads to is what the rule (and the allowance) judges.
    const named = `https://localhost:${receiver.port}${path}`;
    expect((await byAddress.subscribe(named)).result).toMatchObject({ id: expect.any(String) });
    const byLocalhost = await start({ allowHosts: ['localhost'] });
    expect((await byLocalhost.subscribe(named)).result).toMatchObject({ id: expect.any(String) });
  });

  it('refuses webhooks to an anonymous caller with -32024: the key needs someone in it', async () => {
    const app = await createApp(
      [EventEmitterModule.forRoot(), McpModule.forRoot({ name: 'open', version: '1.0.0' })],
      [IncidentEvents],
    );
    apps.push(app);
    const mcp = createMcpTestClient(app);
    const delivery = { url: receiver.url('/anon'), secret: freshSecret() };
    for (const method of ['events/subscribe', 'events/unsubscribe']) {
      const reply = await mcp.post(mcpMessage(method, { name: 'incident.created', delivery }));
      expect(reply.status).toBe(400);
      expect(reply.body.error).toEqual({
        code: -32024,
        message: 'Webhook subscriptions need an authenticated caller',
        data: { reason: 'unauthenticated' },
      });
    }
    expect(receiver.on('/anon')).toEqual([]);
  });

  it('trusts the receiver certificate only through events.webhooks.ca', async () => {
    const app = await webhookApp('express', { allowHosts: ['127.0.0.1'] });
    apps.push(app);
    const reply = await createMcpTestClient(app).post(
      mcpMessage('events/subscribe', {
        name: 'incident.created',
        delivery: { url: receiver.url(receiver.path('tls')), secret: freshSecret() },
      }),
      { authorization: 'Bearer alice' },
    );
    expect(reply.body.error).toMatchObject({ code: -32027, data: { reason: 'tls_error' } });
  });

  it('holds each caller to maxSubscriptionsPerCaller and everyone to maxSubscriptions (-32025)', async () => {
    const { subscribe } = await start({ allowHosts: ['127.0.0.1'], maxSubscriptionsPerCaller: 2, maxSubscriptions: 3 });
    const url = (n: number) => receiver.url(`/bound-${n}`);
    expect((await subscribe(url(1))).result).toBeDefined();
    expect((await subscribe(url(2))).result).toBeDefined();
    // A refresh is not a new subscription.
    expect((await subscribe(url(2))).result).toBeDefined();
    expect((await subscribe(url(3))).error).toEqual({
      code: -32025,
      message: 'Too many webhook subscriptions for this caller',
      data: { limit: 'subscriptionsPerCaller', max: 2 },
    });
    expect((await subscribe(url(3), {}, 'bob')).result).toBeDefined();
    expect((await subscribe(url(4), {}, 'bob')).error).toMatchObject({
      code: -32025,
      data: { limit: 'subscriptions', max: 3 },
    });
  });

  it('grants TTLs within [minTtlMs, maxTtlMs], never no expiry, and forgets a subscription once it lapses', async () => {
    const { subscribe, server } = await start({
      allowHosts: ['127.0.0.1'],
      minTtlMs: 200,
      defaultTtlMs: 60_000,
      maxTtlMs: 120_000,
    });
    const granted = async (more: Record<string, unknown>) => {
      const before = Date.now();
      const { result } = await subscribe(receiver.url(receiver.path('ttl')), more);
      return Date.parse(result!.refreshBefore) - before;
    };
    expect(await granted({ ttlMs: 1 })).toBeLessThanOrEqual(200 + 1_000);
    expect(await granted({ ttlMs: 1 })).toBeGreaterThanOrEqual(200 - 1_000);
    expect(await granted({})).toBeGreaterThan(59_000);
    expect(await granted({ ttlMs: null })).toBeLessThanOrEqual(121_000);
    expect(await granted({ ttlMs: 30 * 24 * 3_600_000 })).toBeLessThanOrEqual(121_000);

    const path = receiver.path('lapse');
    const { result } = await subscribe(receiver.url(path), { ttlMs: 200 });
    while (Date.now() <= Date.parse(result!.refreshBefore)) await new Promise((resolve) => setTimeout(resolve, 50));
    await server.publishEvent('incident.created', { id: 'L-1' });
    const live = receiver.path('live');
    await subscribe(receiver.url(live));
    await server.publishEvent('incident.created', { id: 'L-2' });
    await receiver.until(live, 1, (r) => r.json.data?.id === 'L-2');
    expect(receiver.events(path)).toEqual([]);
  });

  it('keeps at most maxQueue occurrences waiting per subscription, and sends a gap for those it skipped', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const path = receiver.path('slow', async (r) => {
      if (r.json.type === 'verification') return { status: 200, body: JSON.stringify({ challenge: r.json.challenge }) };
      if (r.json.data?.n === 0) await held;
      return { status: 200 };
    });
    const { subscribe, server } = await start({ allowHosts: ['127.0.0.1'], maxQueue: 2 });
    server.addEvent({ name: 'tick', description: 'Ticks', delivery: ['webhook'] });
    await subscribe(receiver.url(path), { name: 'tick' });
    await server.publishEvent('tick', { n: 0 });
    await receiver.until(path, 1, (r) => r.json.data?.n === 0);
    for (const n of [1, 2, 3, 4, 5]) await server.publishEvent('tick', { n });
    release();
    await receiver.until(path, 1, (r) => r.json.data?.n === 5);
    const after = receiver
      .on(path)
      .filter((r) => r.json.type !== 'verification')
      .map((r) => r.json);
    expect(after.map((json) => json.type ?? json.data.n)).toEqual([0, 'gap', 4, 5]);
    expect(after[1]).toEqual({ type: 'gap', cursor: expect.any(String) });
  });
});
