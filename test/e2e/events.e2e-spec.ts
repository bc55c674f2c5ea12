import 'reflect-metadata';
import { Injectable, UseGuards, type INestApplication } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { McpConfigurationError, McpEvent, McpModule, MCPServer } from '../../src/index.js';
import { createMcpTestClient, mcpHeaders, mcpMessage, type McpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { HeaderUserGuard } from '../support/header-user-guard.js';
import { closeListening, listenOnLoopback, LiveResponse } from '../support/sse-client.js';
import { legacyPost, legacyRequest } from '../support/legacy-client.js';

const EVENTS = 'io.modelcontextprotocol/events';

@Injectable()
class OrderEvents {
  @McpEvent({
    name: 'order.shipped',
    description: 'An order left the warehouse',
    payloadSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  })
  shipped(event: { id: string }) {
    return { orderId: event.id };
  }

  @McpEvent({ name: 'order.cancelled', description: 'Only large orders', on: 'order.voided' })
  async cancelled(event: { id: string; total: number }) {
    return event.total >= 100 ? { orderId: event.id } : undefined;
  }

  @McpEvent({
    name: 'audit.login',
    description: 'Someone signed in',
    delivery: ['push'],
    inputSchema: { type: 'object', properties: { user: { type: 'string' } }, additionalProperties: false },
  })
  @UseGuards(HeaderUserGuard)
  login(event: { user: string }) {
    return { user: event.user };
  }
}

type Answer = { status: number; result?: Record<string, any>; error?: { code: number; message: string; data?: any } };

describe.each(HTTP_ADAPTERS)('Events (SEP-3415) on %s', (adapter) => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let emitter: EventEmitter2;
  let server: MCPServer;

  beforeAll(async () => {
    app = await createApp(
      [EventEmitterModule.forRoot(), McpModule.forRoot({ name: 'events', version: '1.0.0' })],
      [OrderEvents],
      adapter,
    );
    mcp = createMcpTestClient(app);
    emitter = app.get(EventEmitter2);
    server = app.get(MCPServer);
    server.addEvent({
      name: 'build.finished',
      description: 'A build ended',
      payloadSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      retention: { maxCount: 2 },
    });
  });
  afterAll(() => app.close());

  const request = async (method: string, params: Record<string, unknown> = {}, headers = {}): Promise<Answer> => {
    const reply = await mcp.post(mcpMessage(method, params), headers);
    return { status: reply.status, ...(reply.body as object) };
  };
  const poll = (params: Record<string, unknown>, headers = {}) => request('events/poll', params, headers);

  it('lists an @McpEvent and delivers what its method returns for each app event, from a cursor', async () => {
    const listed = await request('events/list');
    expect(listed.result!.events).toContainEqual({
      name: 'order.shipped',
      description: 'An order left the warehouse',
      delivery: ['poll', 'push'],
      inputSchema: { type: 'object' },
      payloadSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    });
    const first = await poll({ name: 'order.shipped', cursor: null });
    expect(first.result).toMatchObject({ resultType: 'complete', events: [], truncated: false, hasMore: false });
    expect(first.result!.cursor).toEqual(expect.any(String));

    emitter.emit('order.shipped', { id: 'o-1' });
    const second = await poll({ name: 'order.shipped', cursor: first.result!.cursor });
    expect(second.result!.events).toEqual([
      { eventId: expect.any(String), name: 'order.shipped', timestamp: expect.any(String), data: { orderId: 'o-1' } },
    ]);
    expect(new Date(second.result!.events[0].timestamp).toISOString()).toBe(second.result!.events[0].timestamp);
    expect(second.result!.cursor).not.toBe(first.result!.cursor);

    emitter.emit('order.shipped', { id: 'o-2' });
    const third = await poll({ name: 'order.shipped', cursor: second.result!.cursor });
    expect(third.result!.events.map((e: { data: unknown }) => e.data)).toEqual([{ orderId: 'o-2' }]);
    const quiet = await poll({ name: 'order.shipped', cursor: third.result!.cursor });
    expect(quiet.result).toMatchObject({ events: [], cursor: third.result!.cursor, nextPollMs: expect.any(Number) });
  });

  it('declares the extension in server/discover', async () => {
    const { result } = await request('server/discover');
    expect(result!.capabilities.extensions[EVENTS]).toEqual({ listChanged: true });
  });

  it('listens to `on` when given, and publishes nothing for a method that returns undefined', async () => {
    const { result: start } = await poll({ name: 'order.cancelled' });
    emitter.emit('order.voided', { id: 'small', total: 5 });
    emitter.emit('order.voided', { id: 'large', total: 500 });
    emitter.emit('order.cancelled', { id: 'not-the-app-event', total: 500 });
    await new Promise((resolve) => setImmediate(resolve));
    const { result } = await poll({ name: 'order.cancelled', cursor: start!.cursor });
    expect(result!.events.map((e: { data: unknown }) => e.data)).toEqual([{ orderId: 'large' }]);
  });

  it('answers a guarded event to a caller its guards refuse exactly as an unknown one', async () => {
    const names = (await request('events/list')).result!.events.map((e: { name: string }) => e.name);
    expect(names).not.toContain('audit.login');
    const signedIn = (await request('events/list', {}, { 'x-user': 'ada' })).result!.events;
    expect(signedIn.map((e: { name: string }) => e.name)).toContain('audit.login');

    const hidden = await request('events/stream', { name: 'audit.login' });
    const unknown = await request('events/stream', { name: 'audit.logout' });
    expect(hidden.status).toBe(unknown.status);
    expect(hidden.error).toEqual({ code: -32023, message: 'Event not found: audit.login', data: { kind: 'event' } });
    expect(unknown.error).toEqual({ code: -32023, message: 'Event not found: audit.logout', data: { kind: 'event' } });
  });

  it('refuses a delivery mode the event does not offer, arguments its inputSchema refuses, a forged cursor', async () => {
    const push = await poll({ name: 'audit.login' }, { 'x-user': 'ada' });
    expect(push.error).toMatchObject({ code: -32026, data: { feature: 'deliveryMode', value: 'poll' } });
    const args = await request('events/stream', { name: 'audit.login', arguments: { role: 'x' } }, { 'x-user': 'ada' });
    expect(args.error).toMatchObject({ code: -32602 });
    expect(args.status).toBe(400);
    for (const cursor of ['nope', 42, `${'0'.repeat(16)}-1`.replace(/^0/, 'z')]) {
      const answer = await poll({ name: 'order.shipped', cursor });
      expect(answer.error).toMatchObject({ code: -32602, message: 'Invalid cursor' });
    }
    const { result } = await poll({ name: 'order.shipped' });
    const ahead = String(result!.cursor).replace(/-\d+$/, '-999');
    expect((await poll({ name: 'order.shipped', cursor: ahead })).error).toMatchObject({ code: -32602 });
    for (const bad of [{ name: 1 }, { name: 'order.shipped', maxEvents: 0 }, { name: 'order.shipped', maxAgeMs: -1 }])
      expect((await poll(bad)).error).toMatchObject({ code: -32602 });
  });

  it('says truncated when the cursor fell behind the retention, and resumes from what is kept', async () => {
    const { result: start } = await poll({ name: 'build.finished', cursor: null });
    for (const n of [1, 2, 3]) await server.publishEvent('build.finished', { n });
    const { result } = await poll({ name: 'build.finished', cursor: start!.cursor });
    expect(result).toMatchObject({ truncated: true, hasMore: false });
    expect(result!.events.map((e: { data: unknown }) => e.data)).toEqual([{ n: 2 }, { n: 3 }]);
    const next = await poll({ name: 'build.finished', cursor: result!.cursor });
    expect(next.result).toMatchObject({ events: [], truncated: false });
  });

  it('caps a poll at maxEvents and says hasMore, then skips what is older than maxAgeMs', async () => {
    const { result: start } = await poll({ name: 'build.finished' });
    await server.publishEvent('build.finished', { n: 4 });
    await server.publishEvent('build.finished', { n: 5 });
    const { result: one } = await poll({ name: 'build.finished', cursor: start!.cursor, maxEvents: 1 });
    expect(one).toMatchObject({ hasMore: true, truncated: false, events: [{ data: { n: 4 } }] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { result: old } = await poll({ name: 'build.finished', cursor: one!.cursor, maxAgeMs: 5 });
    expect(old).toMatchObject({ events: [], truncated: true, hasMore: false });
  });

  it('rejects a publish of an undeclared event, of data its payloadSchema refuses, or of no object', async () => {
    await expect(server.publishEvent('nope', {})).rejects.toThrow('No event "nope" is declared');
    await expect(server.publishEvent('build.finished', { n: 'x' })).rejects.toThrow('payloadSchema');
    await expect(server.publishEvent('build.finished', 'text')).rejects.toThrow('plain object');
  });

  it('keeps an event type to its bytes: the oldest go first, and one larger than the whole is refused', async () => {
    server.addEvent({ name: 'log.line', description: 'A line', retention: { maxBytes: 400 } });
    const { result: start } = await poll({ name: 'log.line' });
    const line = 'x'.repeat(100);
    for (const n of [1, 2, 3, 4]) await server.publishEvent('log.line', { n, line });
    const { result } = await poll({ name: 'log.line', cursor: start!.cursor });
    // Each occurrence is some 230 bytes of JSON: a budget of 400 keeps only the newest.
    expect(result).toMatchObject({ truncated: true });
    expect(result!.events.map((e: { data: { n: number } }) => e.data.n)).toEqual([4]);
    await expect(server.publishEvent('log.line', { n: 5, line: 'x'.repeat(400) })).rejects.toThrow(
      'exceeds its retention of 400',
    );
  });

  it('answers a 2025-era client events/* with -32601: the extension is a 2026-07-28 one', async () => {
    const reply = await legacyPost(app, legacyRequest('events/list', {}));
    expect(reply.body.error).toMatchObject({ code: -32601 });
  });

  it('keeps the data as published, whatever the app does to its object afterwards', async () => {
    const { result: start } = await poll({ name: 'build.finished' });
    const data = { n: 6 };
    await server.publishEvent('build.finished', data);
    data.n = 7;
    const { result } = await poll({ name: 'build.finished', cursor: start!.cursor });
    expect(result!.events[0].data).toEqual({ n: 6 });
  });
});

describe.each(HTTP_ADAPTERS)('events/stream on %s', (adapter) => {
  let app: INestApplication;
  let server: MCPServer;
  let emitter: EventEmitter2;
  let url: string;
  const open: LiveResponse[] = [];
  const SUB = 'io.modelcontextprotocol/subscriptionId';

  beforeAll(async () => {
    app = await createApp(
      [EventEmitterModule.forRoot(), McpModule.forRoot({ name: 'streams', version: '1.0.0' })],
      [OrderEvents],
      adapter,
    );
    server = app.get(MCPServer);
    emitter = app.get(EventEmitter2);
    url = await listenOnLoopback(app);
  });
  afterEach(() => open.splice(0).forEach((live) => live.close()));
  afterAll(() => closeListening(app));

  const stream = async (params: Record<string, unknown>, id: string | number = 's-1', headers = {}) => {
    const live = await LiveResponse.post(url, mcpMessage('events/stream', params, { id }), headers);
    open.push(live);
    return live;
  };
  const pollResult = async (params: Record<string, unknown>) => {
    const body = mcpMessage('events/poll', params);
    const res = await fetch(url, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
    return [(await res.json()) as { result: unknown }];
  };

  it('confirms first, then sends each occurrence as it happens, with a cursor a poll resumes from', async () => {
    const live = await stream({ name: 'order.shipped', cursor: null }, 7);
    expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const active = await live.next();
    expect(active).toMatchObject({
      method: 'notifications/events/active',
      params: { cursor: expect.any(String), truncated: false, _meta: { [SUB]: 7 } },
    });
    emitter.emit('order.shipped', { id: 's-1' });
    const event = (await live.next()) as { method: string; params: Record<string, any> };
    expect(event).toMatchObject({
      method: 'notifications/events/event',
      params: { name: 'order.shipped', data: { orderId: 's-1' }, eventId: expect.any(String), _meta: { [SUB]: 7 } },
    });
    emitter.emit('order.shipped', { id: 's-2' });
    const [answer] = await pollResult({ name: 'order.shipped', cursor: event.params.cursor });
    expect((answer.result as { events: Array<{ data: unknown }> }).events.map((e) => e.data)).toEqual([
      { orderId: 's-2' },
    ]);
  });

  it('replays what is kept after the cursor given, between the confirmation and live occurrences', async () => {
    const [first] = await pollResult({ name: 'order.shipped' });
    emitter.emit('order.shipped', { id: 'r-1' });
    const live = await stream({ name: 'order.shipped', cursor: (first.result as { cursor: string }).cursor });
    expect(await live.next()).toMatchObject({ method: 'notifications/events/active', params: { truncated: false } });
    expect(await live.next()).toMatchObject({ params: { data: { orderId: 'r-1' } } });
    emitter.emit('order.shipped', { id: 'r-2' });
    expect(await live.next()).toMatchObject({ params: { data: { orderId: 'r-2' } } });
  });

  it('ends the stream with notifications/events/terminated when the event is removed', async () => {
    server.addEvent({ name: 'temp.event', description: 'Goes away' });
    const live = await stream({ name: 'temp.event' }, 'gone');
    expect(await live.next()).toMatchObject({ method: 'notifications/events/active' });
    expect(server.removeEvent('temp.event')).toBe(true);
    const rest = await live.rest();
    expect(rest).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/events/terminated',
        params: {
          error: { code: -32023, message: 'Event removed: temp.event', data: { kind: 'event' } },
          _meta: { [SUB]: 'gone' },
        },
      },
      {
        jsonrpc: '2.0',
        id: 'gone',
        result: expect.objectContaining({ resultType: 'complete', _meta: expect.objectContaining({ [SUB]: 'gone' }) }),
      },
    ]);
    expect(server.removeEvent('temp.event')).toBe(false);
  });

  it('stops sending to a stream the client closed, and frees its slot', async () => {
    const live = await stream({ name: 'order.shipped' });
    await live.next();
    live.close();
    await live.finished;
    // A closed stream's listener is gone: publishing must not throw or write anywhere.
    await expect(server.publishEvent('order.shipped', { orderId: 'after-close' })).resolves.toBeUndefined();
  });
});

describe('Events without any event declared', () => {
  it('answers events/* with -32601 and does not declare the extension', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'plain', version: '1.0.0' })]);
    try {
      const mcp = createMcpTestClient(app);
      for (const method of ['events/list', 'events/poll', 'events/stream']) {
        const reply = await mcp.post(mcpMessage(method, { name: 'order.shipped' }));
        expect(reply.body.error).toMatchObject({ code: -32601 });
      }
      const discover = await mcp.post(mcpMessage('server/discover'));
      expect(discover.body.result.capabilities.extensions?.[EVENTS]).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('fails start-up for an @McpEvent in an app without EventEmitterModule, naming the fix', async () => {
    const started = createApp([McpModule.forRoot({ name: 'no-emitter', version: '1.0.0' })], [OrderEvents]);
    await expect(started).rejects.toThrow(McpConfigurationError);
    await expect(
      createApp([McpModule.forRoot({ name: 'no-emitter', version: '1.0.0' })], [OrderEvents]),
    ).rejects.toThrow('import EventEmitterModule.forRoot()');
  });
});
