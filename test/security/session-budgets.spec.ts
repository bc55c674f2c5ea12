import 'reflect-metadata';
import { jest } from '@jest/globals';
import { MCPServer, McpModule, type McpContext } from '../../src/index.js';
import type { LegacySessionOptions } from '../../src/server/sessions/legacy-sessions.js';
import { createApp } from '../support/create-app.js';
import { legacyHeaders, legacyRequest } from '../support/legacy-client.js';
import { startFleetInstance, until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { closeListening, listenOnLoopback } from '../support/sse-client.js';

jest.setTimeout(30_000);

/**
 * Every byte a client can make a 2025-era session keep is bounded: its subscriptions (URI length, URIs the
 * server serves, a byte budget), its resumable events (a byte budget, the oldest dropped) and its `initialize`
 * params. Both stores: the process's own and Redis.
 */
const BUDGETS: Omit<LegacySessionOptions, 'store'> = {
  maxSubscriptionBytes: 1024,
  maxEventBytesPerSession: 64 * 1024,
  retryMs: 250,
};

interface Served {
  url: string;
  server: MCPServer;
  close(): Promise<void>;
}

async function inMemory(): Promise<Served> {
  const app = await createApp([
    McpModule.forRoot({ name: 'budgets', version: '1.0.0', legacy: { mode: 'stateful', sessions: BUDGETS } }),
  ]);
  const server = app.get(MCPServer);
  server.addResource({ uri: 'test://watched', name: 'watched', handler: () => 'contents' });
  return { url: await listenOnLoopback(app), server, close: () => closeListening(app) };
}

async function inRedis(): Promise<Served> {
  const instance = await startFleetInstance({ url: MACHINE_REDIS_URL, keyPrefix: testKeyPrefix() }, true, BUDGETS);
  await until(() => instance.backends.listening, 'the instance listens on Redis');
  return { url: instance.url, server: instance.server, close: instance.close };
}

describe.each([
  ['in memory', inMemory],
  ['in Redis', inRedis],
])('2025-era session budgets (%s)', (_, start) => {
  let served: Served;

  beforeAll(async () => {
    served = await start();
    served.server.addResourceTemplate({
      uriTemplate: 'test://items/{id}',
      name: 'item',
      handler: (uri: string) => uri,
    });
    served.server.addTool({
      name: 'loud',
      description: 'Closes its stream, then logs twenty 8 KiB lines',
      inputSchema: { type: 'object' },
      handler: async (_args, _answers, ctx: McpContext) => {
        ctx.closeStream();
        for (let i = 0; i < 20; i++) ctx.log('info', `${i} ${'x'.repeat(8 * 1024)}`);
        return 'done';
      },
    });
  });
  afterAll(() => served.close());

  const post = (body: unknown, session?: string) =>
    fetch(served.url, {
      method: 'POST',
      headers: Object.fromEntries(
        Object.entries({ ...legacyHeaders(), 'mcp-session-id': session }).filter(([, v]) => v !== undefined),
      ) as Record<string, string>,
      body: JSON.stringify(body),
    });

  async function initialize(clientInfo: Record<string, unknown> = { name: 'budgets', version: '1.0.0' }) {
    return post(legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo }));
  }

  async function session(): Promise<string> {
    const res = await initialize();
    await res.text();
    return res.headers.get('mcp-session-id')!;
  }

  const subscribe = async (id: string, uri: string) =>
    (await (await post(legacyRequest('resources/subscribe', { uri }), id)).json()) as {
      result?: unknown;
      error?: { code: number; message: string };
    };

  it('refuses a subscription URI longer than listen.maxUriLength (4096 by default) with -32602', async () => {
    const answer = await subscribe(await session(), `test://items/${'x'.repeat(5000)}`);
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/at most 4096 characters/) });
  });

  it('refuses a subscription no resource or template of the server serves with -32602', async () => {
    const answer = await subscribe(await session(), 'test://nothing-serves-this');
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/no resource or template/) });
    expect((await subscribe(await session(), 'test://watched')).result).toEqual({});
  });

  it('holds a session to maxSubscriptionBytes of URIs', async () => {
    const id = await session();
    const uri = (i: number) => `test://items/${String(i).padStart(100, '0')}`; // 113 bytes
    let held = 0;
    let refused: { code: number; message: string } | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const answer = await subscribe(id, uri(i));
      if (answer.error) refused = answer.error;
      else held++;
    }
    expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(/1024 bytes of URIs/) });
    expect(held * 113).toBeLessThanOrEqual(1024);
    expect(held).toBe(9);
  });

  it('keeps at most maxEventBytesPerSession of a stream for resuming, the newest, its response included', async () => {
    const id = await session();
    const call = await post(legacyRequest('tools/call', { name: 'loud', arguments: {} }, 'loud-1'), id);
    const primingId = /id: (\S+)/.exec(await call.text())![1];
    const resume = () =>
      fetch(served.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'last-event-id': primingId },
      });
    // The first resume may also get events still being kept (live); it ends with the response, kept last, so
    // the second one reads only what the store kept.
    await (await resume()).text();
    const events = [...(await (await resume()).text()).matchAll(/^id: (\S+)\nevent: message\ndata: (.*)$/gm)].map(
      ([, eid, data]) => ({
        id: eid,
        data,
      }),
    );
    const kept = events.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event)), 0);
    // 20 lines of 8 KiB were sent; what is kept for resuming is within the budget, the response last.
    expect(kept).toBeLessThanOrEqual(64 * 1024);
    expect(events.length).toBeGreaterThan(1);
    expect(events.length).toBeLessThan(21);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ id: 'loud-1', result: { content: [{ text: 'done' }] } });
  });

  it('refuses an initialize whose kept params exceed maxInitializeBytes (16 KiB by default) with -32602', async () => {
    const res = await initialize({ name: 'big', version: '1.0.0', description: 'x'.repeat(3 * 1024 * 1024) });
    expect(res.status).toBe(400);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(await res.json()).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/16384 bytes/) } });
    expect((await initialize({ name: 'small', version: '1.0.0', description: 'fine' })).status).toBe(200);
  });
});
