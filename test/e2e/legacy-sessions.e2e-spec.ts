import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpModule, type McpContext, type McpModuleOptions } from '../../src/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { legacyHeaders, legacyRequest } from '../support/legacy-client.js';
import { closeListening, EventStream, listenOnLoopback } from '../support/sse-client.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { ISSUER, RESOURCE } from '../support/auth-tokens.js';

const OBJECT = { type: 'object' } as const;
const TOKENS: Record<string, object> = { alice: { sub: 'alice' }, bob: { sub: 'bob' } };

/** POSTs as a 2025-era client; an undefined header is left out. */
function postLegacy(url: string, body: unknown, headers: Record<string, string | undefined> = {}) {
  const merged = Object.entries({ ...legacyHeaders(), ...headers }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  return fetch(url, { method: 'POST', headers: merged, body: JSON.stringify(body) });
}

function statefulModule(overrides: Partial<McpModuleOptions> = {}) {
  return McpModule.forRoot({
    name: 'sessions',
    version: '1.0.0',
    legacy: { mode: 'stateful', sessions: { retryMs: 250 } },
    ...overrides,
  });
}

function register(server: MCPServer): void {
  server.addTool({
    name: 'capabilities',
    description: 'Says what the client declared',
    inputSchema: OBJECT,
    handler: (_args, _answers, ctx: McpContext) =>
      JSON.stringify({ capabilities: ctx.clientCapabilities, client: ctx.clientInfo?.name }),
  });
  server.addTool({
    name: 'poll',
    description: 'Closes its stream, then answers',
    inputSchema: OBJECT,
    handler: async (_args, _answers, ctx: McpContext) => {
      const closed = ctx.closeStream();
      await new Promise((resolve) => setTimeout(resolve, 50));
      return `closed ${closed}`;
    },
  });
  server.addResource({ uri: 'test://watched', name: 'watched', handler: () => 'w' });
  server.addResource({ uri: 'test://other', name: 'other', handler: () => 'o' });
}

describe.each(HTTP_ADAPTERS)('2025-era sessions, legacy.mode "stateful" (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;
  let server: MCPServer;

  beforeAll(async () => {
    app = await createApp([statefulModule()], [], adapter);
    server = app.get(MCPServer);
    register(server);
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  const post = (body: unknown, headers: Record<string, string | undefined> = {}) => postLegacy(url, body, headers);

  async function initialize(capabilities: Record<string, unknown> = {}): Promise<string> {
    const res = await post(
      legacyRequest('initialize', {
        protocolVersion: '2025-11-25',
        capabilities,
        clientInfo: { name: 'session-test', version: '1.0.0' },
      }),
    );
    expect(res.status).toBe(200);
    const id = res.headers.get('mcp-session-id');
    expect(id).toBeTruthy();
    await res.text();
    return id!;
  }

  it('mints a session id of at least 128 random bits in visible ASCII on initialize, a new one each time', async () => {
    const first = await initialize();
    const second = await initialize();
    expect(first).toMatch(/^[\x21-\x7e]+$/);
    // base64url: 6 bits a character.
    expect(first.length * 6).toBeGreaterThanOrEqual(128);
    expect(second).not.toBe(first);
  });

  it('advertises list changes and subscriptions, which the GET stream delivers', async () => {
    const res = await post(legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {} }));
    const body = (await res.json()) as { result: { capabilities: Record<string, unknown> } };
    expect(body.result.capabilities.tools).toEqual({ listChanged: true });
    expect(body.result.capabilities.resources).toEqual({ subscribe: true, listChanged: true });
  });

  it('refuses a later request without the session (400), with an unknown one (404), and serves it with its own', async () => {
    const session = await initialize();
    const none = await post(legacyRequest('tools/list'));
    expect(none.status).toBe(400);
    const unknown = await post(legacyRequest('tools/list'), { 'mcp-session-id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32001);
    const notification = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notification.status).toBe(400);
    const served = await post(legacyRequest('tools/list'), { 'mcp-session-id': session });
    expect(served.status).toBe(200);
    const initialized = await post(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': session },
    );
    expect(initialized.status).toBe(202);
  });

  it('gives every later call the capabilities and client info the session declared', async () => {
    const session = await initialize({ sampling: {}, elicitation: { form: {} } });
    const res = await post(legacyRequest('tools/call', { name: 'capabilities', arguments: {} }), {
      'mcp-session-id': session,
    });
    const text = await res.text();
    const said = JSON.parse(JSON.parse(/\{.*\}/.exec(text)![0]).result.content[0].text);
    expect(said).toEqual({ capabilities: { sampling: {}, elicitation: { form: {} } }, client: 'session-test' });
  });

  it('serves 2026-07-28 requests on the same endpoint statelessly, never minting or echoing a session id', async () => {
    const session = await initialize();
    const discover = mcpMessage('server/discover');
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...mcpHeaders(discover), 'mcp-session-id': session },
      body: JSON.stringify(discover),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const call = mcpMessage('tools/call', { name: 'capabilities', arguments: {} });
    const plain = await fetch(url, { method: 'POST', headers: mcpHeaders(call), body: JSON.stringify(call) });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('mcp-session-id')).toBeNull();
  });

  it('opens one GET stream per session: primed with an id and retry, list_changed on it, a second GET gets 409', async () => {
    const session = await initialize();
    const headers = { accept: 'text/event-stream', 'mcp-session-id': session };
    const stream = await EventStream.open(url, { method: 'GET', headers });
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toContain('text/event-stream');
    const priming = await stream.next();
    expect(priming).toEqual({ id: expect.stringMatching(/^g[0-9a-f]+_0$/), retry: 250, data: '' });
    const second = await fetch(url, { method: 'GET', headers });
    expect(second.status).toBe(409);
    await second.text();

    const handle = server.addTool({
      name: 'late',
      description: 'Added later',
      inputSchema: OBJECT,
      handler: () => 'x',
    });
    expect(await stream.message()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    handle.remove();
    expect(await stream.message()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    stream.close();
  });

  it('sends resources/updated on the GET stream for the session\u2019s subscriptions only', async () => {
    const session = await initialize();
    const subscribed = await post(legacyRequest('resources/subscribe', { uri: 'test://watched' }), {
      'mcp-session-id': session,
    });
    expect(subscribed.status).toBe(200);
    await subscribed.text();
    const stream = await EventStream.open(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    await stream.next();
    server.notifyResourceUpdated('test://other');
    server.notifyResourceUpdated('test://watched');
    expect(await stream.message()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'test://watched' },
    });
    const unsubscribed = await post(legacyRequest('resources/unsubscribe', { uri: 'test://watched' }), {
      'mcp-session-id': session,
    });
    await unsubscribed.text();
    server.notifyResourceUpdated('test://watched');
    server.addTool({ name: 'marker', description: 'm', inputSchema: OBJECT, handler: () => 'm' }).remove();
    // The next message is the list change: the unsubscribed resource's update never came.
    expect(await stream.message()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    stream.close();
  });

  it('resumes a stream its handler closed: priming event first, the result replayed on a GET with Last-Event-ID', async () => {
    const session = await initialize();
    const call = await EventStream.open(url, {
      method: 'POST',
      headers: Object.fromEntries(
        Object.entries({ ...legacyHeaders(), 'mcp-session-id': session }).filter(([, v]) => v !== undefined),
      ) as Record<string, string>,
      body: JSON.stringify(legacyRequest('tools/call', { name: 'poll', arguments: {} }, 41)),
    });
    expect(call.res.headers.get('content-type')).toContain('text/event-stream');
    const priming = await call.next();
    expect(priming).toEqual({ id: expect.stringMatching(/^p[0-9a-f]+_0$/), retry: 250, data: '' });
    await call.finished;
    await expect(call.next()).rejects.toThrow('the stream ended');

    const resumed = await EventStream.open(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': priming.id! },
    });
    expect(resumed.res.status).toBe(200);
    const result = await resumed.next();
    expect(result.id).toMatch(/^p[0-9a-f]+_1$/);
    expect(JSON.parse(result.data)).toEqual({
      jsonrpc: '2.0',
      id: 41,
      result: { content: [{ type: 'text', text: 'closed true' }] },
    });
    // The resumed POST stream ends with its response.
    await resumed.finished;
  });

  it('refuses a Last-Event-ID this server never made (400)', async () => {
    const session = await initialize();
    const res = await fetch(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': '../../etc' },
    });
    expect(res.status).toBe(400);
    await res.text();
  });

  it('ends a session with DELETE: later requests get 404, its GET stream closes', async () => {
    const session = await initialize();
    const stream = await EventStream.open(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
    });
    await stream.next();
    const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(deleted.status).toBe(200);
    await stream.finished;
    const after = await post(legacyRequest('tools/list'), { 'mcp-session-id': session });
    expect(after.status).toBe(404);
    const again = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(again.status).toBe(404);
  });

  it('still answers GET and DELETE without a session with 400, and other verbs with 405', async () => {
    const get = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(400);
    const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(put.status).toBe(405);
  });
});

describe('2025-era sessions are bound and bounded', () => {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await createApp([
      statefulModule({
        legacy: { mode: 'stateful', sessions: { maxPerCaller: 2, maxTotal: 3 } },
        auth: { resource: RESOURCE, authorizationServers: [ISSUER], verify: (t: string) => TOKENS[t] },
      }),
    ]);
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  const post = (token: string, body: unknown, session?: string) =>
    postLegacy(url, body, { ...bearer(token), 'mcp-session-id': session });
  const initialize = (token: string) =>
    post(token, legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {} }));

  it('answers another caller\u2019s session as unknown (404), and caps sessions per caller (429) and in all (503)', async () => {
    const alice1 = await initialize('alice');
    const session = alice1.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    const stolen = await post('bob', legacyRequest('tools/list'), session);
    expect(stolen.status).toBe(404);
    const stolenGet = await fetch(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, ...bearer('bob') },
    });
    expect(stolenGet.status).toBe(404);
    const stolenDelete = await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session, ...bearer('bob') },
    });
    expect(stolenDelete.status).toBe(404);

    expect((await initialize('alice')).status).toBe(200);
    const third = await initialize('alice');
    expect(third.status).toBe(429);
    expect(third.headers.get('mcp-session-id')).toBeNull();
    expect((await initialize('bob')).status).toBe(200);
    const full = await initialize('bob');
    expect(full.status).toBe(503);

    // Ending one frees its place.
    const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session, ...bearer('alice') } });
    expect(deleted.status).toBe(200);
    expect((await initialize('bob')).status).toBe(200);
  });
});

describe('2025-era sessions keep a bounded event log, and bounded streams', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await createApp([
      statefulModule({
        legacy: { mode: 'stateful', sessions: { maxEventsPerSession: 3, maxStreamsPerSession: 2, streamLeaseMs: 300 } },
      }),
    ]);
    app.get(MCPServer).addTool({
      name: 'chatty',
      description: 'Closes its stream, then logs five times',
      inputSchema: OBJECT,
      handler: async (_args, _answers, ctx: McpContext) => {
        ctx.closeStream();
        for (let i = 0; i < 5; i++) ctx.log('info', `line ${i}`);
        return 'done';
      },
    });
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  const post = (body: unknown, session?: string) => postLegacy(url, body, { 'mcp-session-id': session });

  async function initialize(): Promise<string> {
    const res = await post(legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {} }));
    await res.text();
    return res.headers.get('mcp-session-id')!;
  }

  it('replays only the newest maxEventsPerSession events of a closed stream', async () => {
    const session = await initialize();
    const call = await post(legacyRequest('tools/call', { name: 'chatty', arguments: {} }, 9), session);
    const primingId = /id: (\S+)/.exec(await call.text())![1];
    // The handler sent 5 logs and its result after its stream closed: 6 events, of which 3 are kept.
    const resumed = await fetch(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': primingId },
    });
    const text = await resumed.text();
    const seqs = [...text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1].split('_')[1]);
    expect(seqs).toEqual(['4', '5', '6']);
    expect(text).toContain('"id":9');
  });

  it('keeps the GET stream\u2019s claim while it is open, past many leases, and frees it when it closes', async () => {
    const session = await initialize();
    const headers = { accept: 'text/event-stream', 'mcp-session-id': session };
    const stream = await EventStream.open(url, { method: 'GET', headers });
    await stream.next();
    // Four leases of 300 ms: renewed all along, so a second GET is still refused.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const second = await fetch(url, { method: 'GET', headers });
    expect(second.status).toBe(409);
    await second.text();
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await EventStream.open(url, { method: 'GET', headers });
    expect(again.res.status).toBe(200);
    again.close();
  });

  it('caps the streams one session holds open (409 past maxStreamsPerSession)', async () => {
    const session = await initialize();
    const streams: AbortController[] = [];
    const open = async (lastEventId?: string) => {
      const abort = new AbortController();
      streams.push(abort);
      const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': session };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      return fetch(url, { method: 'GET', headers, signal: abort.signal });
    };
    expect((await open()).status).toBe(200);
    expect((await open('pa_0')).status).toBe(200);
    const third = await open('pb_0');
    expect(third.status).toBe(409);
    streams.forEach((abort) => abort.abort());
  });
});
