import { Client } from 'mcp-sdk-v1/client/index.js';
import { StreamableHTTPClientTransport } from 'mcp-sdk-v1/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from 'mcp-sdk-v1/types.js';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { receivedMessages, RecordingProxy, type WireExchange } from './support/recording-proxy.js';
import { postedReplyStatuses, serverErrors } from './support/wire-log.js';

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
};

const header = (exchange: WireExchange, name: string): string | undefined => {
  const value = exchange.requestHeaders[name];
  return Array.isArray(value) ? value[0] : value;
};

const methodsReceived = (exchange: WireExchange): unknown[] =>
  receivedMessages(exchange).map((message) => message.method);

/**
 * `@modelcontextprotocol/sdk` 1.32.2 against `legacy.mode: 'stateful'`: the session the server mints on
 * `initialize`, the GET stream its transport opens once initialized (where a list change made at run time
 * reaches it), a call whose stream the handler ends early (the transport resumes it with `Last-Event-ID`),
 * and `terminateSession()` (DELETE), after which the old id is refused.
 */
describe('@modelcontextprotocol/sdk 1.32.2 (2025 era, stateful)', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let sessionId: string;
  const listChanges: string[] = [];
  const asked: string[] = [];

  beforeAll(async () => {
    app = await startClientsApp('express', 'stateful');
    proxy = await RecordingProxy.start(app.url);
    client = new Client({ name: 'sdk-1.32.2-stateful', version: '1.32.2' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async (notification) => {
      listChanges.push(notification.method);
    });
    transport = new StreamableHTTPClientTransport(new URL(proxy.url));
    await client.connect(transport);
    sessionId = transport.sessionId!;
  });
  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await app?.close();
  });

  const gets = () => proxy.exchanges.filter((exchange) => exchange.method === 'GET');

  it('is given the session id on initialize, and opens the GET stream with it', async () => {
    const initialize = proxy.exchanges.find((exchange) => exchange.sent.some((m) => m.method === 'initialize'));
    expect(initialize?.responseHeaders['mcp-session-id']).toEqual(expect.any(String));
    expect(sessionId).toBe(initialize?.responseHeaders['mcp-session-id']);
    await until(() => gets().length > 0, 'the transport opened its GET stream');
    const [stream] = gets();
    expect(stream.status).toBe(200);
    expect(stream.responseHeaders['content-type']).toMatch(/^text\/event-stream/);
    expect(header(stream, 'mcp-session-id')).toBe(sessionId);
    expect(header(stream, 'last-event-id')).toBeUndefined();
  });

  it('gets a tools/list_changed the server emits when a tool is registered at run time, on the GET stream', async () => {
    // The stream is open on the server once its priming event crossed the proxy.
    await until(() => /^id: /m.test(gets()[0]?.responseText ?? ''), 'the GET stream was primed');
    app.server.registerTool('late_tool', 'Registered after the client connected', { type: 'object' }, () => 'late');
    await until(() => listChanges.length > 0, 'the client heard the list change');
    expect(listChanges).toEqual(['notifications/tools/list_changed']);
    expect(methodsReceived(gets()[0])).toEqual(['notifications/tools/list_changed']);
    // No POST carried it: no POST was open.
    const posts = proxy.exchanges.filter((exchange) => exchange.method === 'POST');
    expect(posts.flatMap(methodsReceived)).not.toContain('notifications/tools/list_changed');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...TOOL_NAMES, 'late_tool']);
  });

  it('calls a tool in the session', async () => {
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it('resumes a call stream the handler closed with Last-Event-ID, and gets the result there', async () => {
    const before = gets().length;
    const result = await client.callTool({ name: 'slow_report', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'Report ready (stream was closed)' }]);
    const post = proxy.exchanges.find((exchange) =>
      exchange.sent.some((m) => m.method === 'tools/call' && (m.params as { name?: string }).name === 'slow_report'),
    )!;
    const callId = post.sent[0].id;
    // The POST's stream ended with its priming event only; the answer came on the GET that resumed it.
    expect(receivedMessages(post)).toEqual([]);
    const resumed = gets()
      .slice(before)
      .filter((exchange) => header(exchange, 'last-event-id') !== undefined);
    expect(resumed).toHaveLength(1);
    expect(header(resumed[0], 'last-event-id')).toMatch(/^p[0-9a-f]+_0$/);
    expect(header(resumed[0], 'mcp-session-id')).toBe(sessionId);
    expect(receivedMessages(resumed[0])).toEqual([expect.objectContaining({ id: callId, result: expect.anything() })]);
  });

  it('answers an elicitation its call asks after closing its stream: it rides the resumed call stream, not the GET', async () => {
    app.server.addTool({
      name: 'confirm_later',
      description: 'Ends its stream, then asks',
      inputSchema: { type: 'object' },
      handler: async (_args, _answers, ctx) => {
        ctx.closeStream();
        const answer = await ctx.elicit('Go ahead?', {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        });
        return answer.action === 'accept' ? 'Went ahead' : 'Stopped';
      },
    });
    await until(() => listChanges.length === 2, 'the client heard the second list change');
    const before = proxy.exchanges.length;
    const result = await client.callTool({ name: 'confirm_later', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'Went ahead' }]);
    expect(asked).toEqual(['Go ahead?']);
    const since = proxy.exchanges.slice(before);
    const resumed = since.filter((exchange) => exchange.method === 'GET');
    expect(resumed.map((exchange) => header(exchange, 'last-event-id'))).toEqual([expect.stringMatching(/^p/)]);
    // The request, then the call's response (no method).
    expect(methodsReceived(resumed[0])).toEqual(['elicitation/create', undefined]);
    expect(postedReplyStatuses(since)).toEqual([202]);
    // The session's own GET stream carried list changes only.
    expect(methodsReceived(gets()[0])).toEqual([
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
    ]);
  });

  it('carried the minted session id on every request after initialize', () => {
    const after = proxy.exchanges.filter((exchange) => !exchange.sent.some((m) => m.method === 'initialize'));
    expect(after.length).toBeGreaterThan(3);
    expect(new Set(after.map((exchange) => header(exchange, 'mcp-session-id')))).toEqual(new Set([sessionId]));
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });

  it('ends the session with terminateSession (DELETE), and a later call with the old id gets 404', async () => {
    await transport.terminateSession();
    const deleted = proxy.exchanges.filter((exchange) => exchange.method === 'DELETE');
    expect(deleted.map((exchange) => [exchange.status, header(exchange, 'mcp-session-id')])).toEqual([
      [200, sessionId],
    ]);
    expect(transport.sessionId).toBeUndefined();

    // A client that reconnects with the old id skips initialize, as SDK 1.x does, and is refused.
    const stale = new Client({ name: 'sdk-1.32.2-stale', version: '1.32.2' }, { capabilities: {} });
    await stale.connect(new StreamableHTTPClientTransport(new URL(proxy.url), { sessionId }));
    try {
      await expect(stale.callTool({ name: 'greet', arguments: { name: 'Ada' } })).rejects.toMatchObject({
        code: 404,
      });
    } finally {
      await stale.close();
    }
    const refused = proxy.exchanges.filter(
      (exchange) =>
        exchange.method === 'POST' && exchange.sent.some((m) => m.method === 'tools/call') && exchange.status === 404,
    );
    expect(refused).toHaveLength(1);
    expect(header(refused[0], 'mcp-session-id')).toBe(sessionId);
    expect(receivedMessages(refused[0])).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ code: -32001 }) }),
    ]);
  });
});
