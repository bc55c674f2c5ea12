import 'reflect-metadata';
import { jest } from '@jest/globals';
import { PassThrough } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import { McpConfigurationError, McpModule, MCPServer } from '../../src/index.js';
import { McpKernel, McpStdioDriver } from '../../src/core/index.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { closeListening, listenOnLoopback, LiveResponse } from '../support/sse-client.js';
import { freshSecret, RECEIVER_CERT, signedWith, WebhookReceiver } from '../support/webhook-receiver.js';

jest.setTimeout(30_000);

const SUB = 'io.modelcontextprotocol/subscriptionId';

describe.each(HTTP_ADAPTERS)('notifications/events/list_changed on subscriptions/listen (%s)', (adapter) => {
  let app: INestApplication;
  let server: MCPServer;
  let url: string;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'changes', version: '1.0.0' })], [], adapter);
    server = app.get(MCPServer);
    server.addEvent({ name: 'first', description: 'There from the start' });
    server.registerTool('start', 'There from the start', { type: 'object' }, () => 'ok');
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  it('says listChanged in discover, echoes eventsListChanged, and tells a stream that asked of an add and a remove', async () => {
    const body = mcpMessage('server/discover');
    const discover = await fetch(url, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
    const { result } = (await discover.json()) as { result: { capabilities: { extensions: Record<string, unknown> } } };
    expect(result.capabilities.extensions['io.modelcontextprotocol/events']).toEqual({ listChanged: true });

    const asked = await LiveResponse.post(
      url,
      mcpMessage('subscriptions/listen', { notifications: { eventsListChanged: true } }, { id: 'asked' }),
    );
    const silent = await LiveResponse.post(
      url,
      mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'silent' }),
    );
    try {
      expect(await asked.next()).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { eventsListChanged: true }, _meta: { [SUB]: 'asked' } },
      });
      expect(await silent.next()).toMatchObject({ params: { notifications: { toolsListChanged: true } } });
      server.addEvent({ name: 'second', description: 'Added while listening' });
      expect(await asked.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/events/list_changed',
        params: { _meta: { [SUB]: 'asked' } },
      });
      server.removeEvent('second');
      expect(await asked.next()).toMatchObject({ method: 'notifications/events/list_changed' });
      // The stream that did not ask is told only what it asked for: a tool added after is its first message.
      server.registerTool('marker', 'A marker', { type: 'object' }, () => 'ok');
      expect(await silent.next()).toMatchObject({ method: 'notifications/tools/list_changed' });
    } finally {
      asked.close();
      silent.close();
    }
  });
});

describe('events/list_changed is not honoured without event types', () => {
  it('leaves eventsListChanged out of the acknowledgement', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'none', version: '1.0.0' })]);
    const url = await listenOnLoopback(app);
    const live = await LiveResponse.post(
      url,
      mcpMessage('subscriptions/listen', { notifications: { eventsListChanged: true } }, { id: 'x' }),
    );
    try {
      expect(await live.next()).toMatchObject({ params: { notifications: {} } });
    } finally {
      live.close();
      await closeListening(app);
    }
  });
});

describe('events.webhooks at start-up', () => {
  const start = (webhooks: unknown) =>
    createApp([McpModule.forRoot({ name: 'bad', version: '1.0.0', events: { webhooks } as never })]);

  it.each([
    [{ allowHost: ['x'] }, "unknown option 'allowHost' in events.webhooks"],
    [{ allowHosts: 'localhost' }, 'events.webhooks.allowHosts must be a list'],
    [{ allowHosts: ['https://x.example'] }, 'events.webhooks.allowHosts must be a list'],
    [{ maxQueue: 0 }, 'events.webhooks.maxQueue'],
    [{ timeoutMs: 1.5 }, 'events.webhooks.timeoutMs'],
    [{ minTtlMs: 10_000, maxTtlMs: 5_000 }, 'must not exceed maxTtlMs'],
  ])('refuses %j, naming it', async (webhooks, named) => {
    const started = start(webhooks);
    await expect(started).rejects.toThrow(McpConfigurationError);
    await expect(start(webhooks)).rejects.toThrow(named);
  });

  it('refuses an unknown key in events', async () => {
    const started = createApp([McpModule.forRoot({ name: 'bad', version: '1.0.0', events: { hooks: {} } as never })]);
    await expect(started).rejects.toThrow('events.hooks');
  });
});

/** The stdio driver on in-memory pipes, as a launched process runs it: lines in, parsed lines out. */
function stdio(kernel: McpKernel, principal?: unknown) {
  const input = new PassThrough();
  const lines: Array<Record<string, any>> = [];
  const waiters: Array<() => void> = [];
  void new McpStdioDriver(kernel, { principal }).serve(input, {
    write(data, callback) {
      for (const line of data.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      waiters.splice(0).forEach((wake) => wake());
      setImmediate(() => callback?.());
      return true;
    },
  });
  return {
    send: (message: unknown) => input.write(`${JSON.stringify(message)}\n`),
    async response(id: string): Promise<Record<string, any>> {
      for (;;) {
        const found = lines.find((m) => m.id === id && ('result' in m || 'error' in m));
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    end: () => input.end(),
  };
}

describe('Webhooks over stdio', () => {
  let receiver: WebhookReceiver;
  let kernel: McpKernel;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    kernel = new McpKernel({
      name: 'stdio-hooks',
      version: '1.0.0',
      events: { webhooks: { allowHosts: ['127.0.0.1'], ca: RECEIVER_CERT } },
    });
    kernel.addEvent({ name: 'job.done', description: 'A job ended', delivery: ['webhook', 'push'] });
  });
  afterAll(async () => {
    kernel.close();
    await receiver.close();
  });

  it('subscribes for the principal the process runs as, delivers, and unsubscribes', async () => {
    const pipe = stdio(kernel, { sub: 'operator' });
    const path = receiver.path('stdio');
    const secret = freshSecret();
    const delivery = { mode: 'webhook', url: receiver.url(path), secret };
    pipe.send(mcpMessage('events/subscribe', { name: 'job.done', delivery, ttlMs: 600_000 }, { id: 'sub' }));
    const subscribed = await pipe.response('sub');
    expect(subscribed.result).toMatchObject({ id: expect.stringMatching(/^sub_/), truncated: false });
    await kernel.publishEvent('job.done', { job: 7 });
    const [event] = await receiver.until(path, 1, (r) => r.json.eventId !== undefined);
    expect(event.json.data).toEqual({ job: 7 });
    expect(event.headers['x-mcp-subscription-id']).toBe(subscribed.result.id);
    expect(signedWith(event, secret)).toBe(true);
    pipe.send(
      mcpMessage('events/unsubscribe', { name: 'job.done', delivery: { url: receiver.url(path) } }, { id: 'un' }),
    );
    expect((await pipe.response('un')).result).toMatchObject({ resultType: 'complete' });
    pipe.end();
  });

  it('refuses a process with no principal with -32024', async () => {
    const pipe = stdio(kernel);
    const delivery = { url: receiver.url('/stdio-anon'), secret: freshSecret() };
    pipe.send(mcpMessage('events/subscribe', { name: 'job.done', delivery }, { id: 'anon' }));
    expect((await pipe.response('anon')).error).toMatchObject({ code: -32024 });
    expect(receiver.on('/stdio-anon')).toEqual([]);
    pipe.end();
  });
});
