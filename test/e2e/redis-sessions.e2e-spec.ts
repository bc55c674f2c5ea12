import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { McpContext } from '../../src/index.js';
import { legacyHeaders, legacyRequest } from '../support/legacy-client.js';
import { FleetInstance, startFleetInstance, until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, RedisServerProcess, testKeyPrefix } from '../support/redis-server.js';
import { EventStream } from '../support/sse-client.js';

// Real Redis servers, started and killed, and several Nest apps in one process.
jest.setTimeout(30_000);

const OBJECT = { type: 'object' } as const;

function post(url: string, body: unknown, session?: string): Promise<Response> {
  const headers = Object.entries({ ...legacyHeaders(), 'mcp-session-id': session }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function initialize(url: string): Promise<Response> {
  return post(url, legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: { roots: {} } }));
}

function addPoll(instance: FleetInstance): void {
  instance.server.addTool({
    name: 'poll',
    description: 'Closes its stream, then answers with what the session declared',
    inputSchema: OBJECT,
    handler: async (_args, _answers, ctx: McpContext) => {
      ctx.closeStream();
      await new Promise((resolve) => setTimeout(resolve, 50));
      return JSON.stringify(ctx.clientCapabilities);
    },
  });
}

describe('nestjs-mcp/redis: a 2025-era session made on one instance is served by every other', () => {
  const keyPrefix = testKeyPrefix();
  let a: FleetInstance;
  let b: FleetInstance;
  let c: FleetInstance;

  beforeAll(async () => {
    [a, b, c] = await Promise.all([0, 1, 2].map(() => startFleetInstance({ url: MACHINE_REDIS_URL, keyPrefix }, true)));
    [a, b, c].forEach(addPoll);
    await until(() => [a, b, c].every((instance) => instance.backends.listening), 'every instance listens on Redis');
  });
  afterAll(() => Promise.all([a, b, c].map((instance) => instance?.close())));

  it('is used on B, streamed on C (a change made on A arrives there), resumed on B, and ended on C for all', async () => {
    const opened = await initialize(a.url);
    const session = opened.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    await opened.text();

    const listed = await post(b.url, legacyRequest('tools/list'), session);
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain('"poll"');

    const stream = await EventStream.open(c.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    expect(stream.res.status).toBe(200);
    expect((await stream.next()).data).toBe('');
    // One GET stream per session, across instances.
    const second = await fetch(b.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    expect(second.status).toBe(409);
    await second.text();
    a.server.addTool({ name: 'late', description: 'Added on A', inputSchema: OBJECT, handler: () => 'x' });
    expect(await stream.message()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

    // A call on A closes its stream; the client resumes it on B and gets the result, with the session's capabilities.
    const call = await post(a.url, legacyRequest('tools/call', { name: 'poll', arguments: {} }, 77), session);
    const primingId = /id: (\S+)/.exec(await call.text())![1];
    const resumed = await fetch(b.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': primingId },
    });
    const text = await resumed.text();
    expect(text).toContain('"id":77');
    expect(text).toContain(JSON.stringify(JSON.stringify({ roots: {} })).slice(1, -1));

    const deleted = await fetch(c.url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(deleted.status).toBe(200);
    await stream.finished;
    for (const instance of [a, b]) {
      const after = await post(instance.url, legacyRequest('tools/list'), session);
      expect(after.status).toBe(404);
    }
  });

  it('keeps every URI of concurrent resources/subscribe calls of one session spread over instances', async () => {
    const uris = Array.from({ length: 8 }, (_, i) => `test://shared/${i}`);
    for (const instance of [a, b, c])
      for (const uri of uris) instance.server.addResource({ uri, name: uri, handler: () => uri });
    const opened = await initialize(a.url);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const statuses = await Promise.all(
      uris.map((uri, i) =>
        post([a, b][i % 2].url, legacyRequest('resources/subscribe', { uri }, i + 1), session).then(async (res) => {
          await res.text();
          return res.status;
        }),
      ),
    );
    expect(statuses).toEqual(uris.map(() => 200));
    const stream = await EventStream.open(c.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    await stream.next();
    for (const uri of uris) a.server.notifyResourceUpdated(uri);
    const updated: string[] = [];
    while (updated.length < uris.length)
      updated.push(((await stream.message()) as { params: { uri: string } }).params.uri);
    expect(updated.sort()).toEqual([...uris].sort());
    stream.close();
  });
});

describe('nestjs-mcp/redis: the GET stream of a session held by an instance that is gone', () => {
  const keyPrefix = testKeyPrefix();
  const lease = { streamLeaseMs: 600 };
  let a: FleetInstance;
  let b: FleetInstance;

  beforeAll(async () => {
    [a, b] = await Promise.all(
      [0, 1].map(() => startFleetInstance({ url: MACHINE_REDIS_URL, keyPrefix }, true, lease)),
    );
    await until(() => [a, b].every((instance) => instance.backends.listening), 'every instance listens on Redis');
  });
  afterAll(() => Promise.all([a, b].map((instance) => instance?.close())));

  it('stays claimed while its instance renews it, and is free within a lease once that instance is cut off', async () => {
    const opened = await initialize(a.url);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const headers = { accept: 'text/event-stream', 'mcp-session-id': session };
    const held = await EventStream.open(a.url, { method: 'GET', headers });
    await held.next();
    // Three leases later, renewed all along: still one GET per session.
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    const refused = await fetch(b.url, { method: 'GET', headers });
    expect(refused.status).toBe(409);
    await refused.text();

    // A loses Redis, as an instance that died would: it neither renews nor releases the claim.
    await a.connections.close();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const taken = await EventStream.open(b.url, { method: 'GET', headers });
    expect(taken.res.status).toBe(200);
    expect((await taken.next()).data).toBe('');
    taken.close();
    held.close();
  });
});

describe('nestjs-mcp/redis: sessions while Redis is down', () => {
  let redis: RedisServerProcess;
  let a: FleetInstance;

  beforeAll(async () => {
    redis = await RedisServerProcess.onFreePort();
    await redis.start();
    a = await startFleetInstance({ url: redis.url, keyPrefix: testKeyPrefix() }, true);
    await until(() => a.backends.listening, 'the instance listens on Redis');
  });
  afterAll(async () => {
    await a?.close();
    await redis?.kill();
  });

  it('fails session calls with 503 naming the store while Redis is down, and serves them again once it is back', async () => {
    const opened = await initialize(a.url);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    await redis.kill();
    const down = await post(a.url, legacyRequest('tools/list'), session);
    expect(down.status).toBe(503);
    expect(await down.text()).toContain('the session store cannot be reached');
    const refused = await initialize(a.url);
    expect(refused.status).toBe(503);
    await refused.text();

    await redis.start();
    await until(() => a.connections.ready, 'the instance reconnected');
    // Without persistence the session is gone: the client is told to initialize again, and can.
    const gone = await post(a.url, legacyRequest('tools/list'), session);
    expect(gone.status).toBe(404);
    const again = await initialize(a.url);
    expect(again.status).toBe(200);
    expect(again.headers.get('mcp-session-id')).toBeTruthy();
  });
});
