import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { InputRequired, MCPServer, McpModule, type InputResponses, type McpContext } from '../../src/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { callAnswering, legacyHeaders, legacyPost, legacyRequest, postReply } from '../support/legacy-client.js';
import { createAuthApp, createTestIssuer, ISSUER, type TestIssuer } from '../support/auth-tokens.js';
import { createMcpTestClient, mcpMessage, sseMessages } from '../../src/testing/index.js';
import { closeListening, listenOnLoopback, LiveResponse } from '../support/sse-client.js';
import { McpHttpDriver, McpKernel } from '../../src/core/index.js';

const OBJECT = { type: 'object' } as const;
const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const COLOR_FORM = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] };
const SAMPLED = {
  role: 'assistant',
  content: { type: 'text', text: 'Paris' },
  model: 'test-model',
  stopReason: 'endTurn',
};
const ROOTS = { roots: [{ uri: 'file:///work', name: 'work' }] };

/** The tools, resources and prompts every test here uses, each written once for both eras. */
function register(server: MCPServer): void {
  const tool = (name: string, description: string, handler: (ctx: McpContext, answers: InputResponses) => unknown) =>
    server.addTool({
      name,
      description,
      inputSchema: OBJECT,
      handler: (_args, answers, ctx: McpContext) => handler(ctx, answers),
    });
  server.registerTool(
    'greet',
    'Greets',
    { type: 'object', properties: { name: { type: 'string' } } },
    (args: { name?: string }) => `Hello, ${args.name ?? 'world'}!`,
  );
  tool('ask_name', 'Asks the user for a name', async (ctx) => {
    const answer = await ctx.elicit('What is your name?', NAME_FORM, { key: 'user_name' });
    return answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}!` : `No name (${answer.action})`;
  });
  tool(
    'ask_model',
    'Asks the client model',
    async (ctx) => `model said ${JSON.stringify((await ctx.sample('Capital of France?', { maxTokens: 10 })).content)}`,
  );
  tool('list_roots', 'Lists the client roots', async (ctx) =>
    (await ctx.listRoots()).map((root) => root.uri).join(','),
  );
  tool('two_steps', 'Two rounds, state carried between them', async (ctx) => {
    const name = await ctx.elicit('Step 1: name?', NAME_FORM, { key: 'step1' });
    ctx.state = { rounds: ctx.round };
    const color = await ctx.elicit('Step 2: color?', COLOR_FORM, { key: 'step2' });
    return `${String(name.content?.name)} likes ${String(color.content?.color)} (round ${ctx.round})`;
  });
  tool('by_hand', 'Throws InputRequired with its own keys and reads the answers under them', (_ctx, answers) => {
    if (!answers.where || !answers.model) {
      throw new InputRequired({
        where: { method: 'roots/list', params: {} },
        model: {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 },
        },
      });
    }
    return `keys ${Object.keys(answers).sort().join(',')}`;
  });
  tool('chatty', 'Logs and reports progress', (ctx) => {
    ctx.log('debug', 'starting');
    ctx.reportProgress({ progress: 1, total: 2 });
    ctx.log('info', 'half way');
    ctx.reportProgress({ progress: 2, total: 2 });
    return `protocol ${ctx.protocolVersion}`;
  });
  server.addResource({ uri: 'test://doc', name: 'Doc', mimeType: 'text/plain', handler: () => 'the doc' });
  server.addResourceTemplate({
    uriTemplate: 'test://items/{id}',
    name: 'Item',
    handler: (uri) => `item ${uri}`,
    complete: { id: () => ['1', '2'] },
  });
  server.addPrompt({
    name: 'hello',
    description: 'Says hello',
    arguments: [{ name: 'who', required: true }],
    handler: (args) => `Hello ${args.who}`,
    complete: { who: (value) => ['Ada', 'Alan'].filter((v) => v.startsWith(value)) },
  });
  server.addPrompt({
    name: 'ask_context',
    description: 'Elicits its context first',
    handler: async (_args, ctx: McpContext) => {
      const answer = await ctx.elicit(
        'Context?',
        { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
        { key: 'ctx' },
      );
      return `context: ${String(answer.content?.context)}`;
    },
  });
}

const elicitAnswer = (name: string) => ({ result: { action: 'accept', content: { name } } });

describe.each(HTTP_ADAPTERS)('2025-era clients on the same endpoint, statelessly (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;
  let driver: McpHttpDriver;

  beforeAll(async () => {
    app = await createApp(
      [McpModule.forRoot({ name: 'dual', version: '2.0.0', instructions: 'Use greet to greet.' })],
      [],
      adapter,
    );
    register(app.get(MCPServer));
    driver = app.get(McpHttpDriver);
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));
  afterEach(() => expect(driver.legacy?.waiting).toBe(0));

  describe('initialize: version negotiation, no session', () => {
    it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
      'echoes the supported version %s',
      async (version) => {
        const res = await legacyPost(
          app,
          legacyRequest('initialize', {
            protocolVersion: version,
            capabilities: {},
            clientInfo: { name: 'c', version: '1' },
          }),
          {
            'mcp-protocol-version': undefined,
          },
        ).expect(200);
        expect(res.body.result.protocolVersion).toBe(version);
        expect(res.headers['mcp-session-id']).toBeUndefined();
      },
    );

    it.each(['1999-01-01', '2026-07-28', 'draft'])(
      'answers an unsupported requested version %s with 2025-11-25, never an error',
      async (version) => {
        const res = await legacyPost(app, legacyRequest('initialize', { protocolVersion: version, capabilities: {} }), {
          'mcp-protocol-version': undefined,
        }).expect(200);
        expect(res.body.result.protocolVersion).toBe('2025-11-25');
      },
    );

    it('answers with the 2025 shape: capabilities, serverInfo and instructions, and nothing of 2026-07-28', async () => {
      const res = await legacyPost(
        app,
        legacyRequest('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
      ).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.result).toEqual({
        protocolVersion: '2025-11-25',
        capabilities: { tools: {}, prompts: {}, resources: { subscribe: true }, completions: {}, logging: {} },
        serverInfo: { name: 'dual', version: '2.0.0' },
        instructions: 'Use greet to greet.',
      });
    });

    it('ignores a session id the client sends and never returns one', async () => {
      const res = await legacyPost(app, legacyRequest('tools/list', {}), { 'mcp-session-id': 'bogus-123' }).expect(200);
      expect(res.body.result.tools.length).toBeGreaterThan(0);
      expect(res.headers['mcp-session-id']).toBeUndefined();
    });
  });

  describe('transport rules', () => {
    it.each(['notifications/initialized', 'notifications/cancelled', 'notifications/roots/list_changed'])(
      'answers the notification %s with 202 and no body',
      async (method) => {
        const res = await legacyPost(app, { jsonrpc: '2.0', method, params: {} }).expect(202);
        expect(res.text).toBe('');
      },
    );

    it.each(['get', 'delete'] as const)(
      'answers %s with 405, Allow: POST and a -32000 body, whatever the era headers say',
      async (verb) => {
        for (const version of ['2025-11-25', '2026-07-28']) {
          const res = await request(app.getHttpServer())
            [verb]('/mcp')
            .set('accept', 'text/event-stream')
            .set('mcp-protocol-version', version)
            .expect(405);
          expect(res.headers.allow).toBe('POST');
          expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.any(String) } });
          expect(res.headers['mcp-session-id']).toBeUndefined();
        }
      },
    );

    it('serves a request without MCP-Protocol-Version as 2025-03-26', async () => {
      const res = await legacyPost(app, legacyRequest('tools/call', { name: 'chatty', arguments: {} }), {
        'mcp-protocol-version': undefined,
      }).expect(200);
      const result = sseMessages(res.text).at(-1)!.result as { content: Array<{ text: string }> };
      expect(result.content[0].text).toBe('protocol 2025-03-26');
    });

    it('refuses an unsupported MCP-Protocol-Version with 400 -32022, naming what it speaks', async () => {
      const res = await legacyPost(app, legacyRequest('tools/list', {}, 41), {
        'mcp-protocol-version': '1999-01-01',
      }).expect(400);
      expect(res.body).toMatchObject({
        id: 41,
        error: { code: -32022, data: { supported: ['2026-07-28'], requested: '1999-01-01' } },
      });
      expect(res.body.error.message).toMatch(/2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05/);
    });

    it('refuses a request whose header names 2026-07-28 without the claim: 400 -32602', async () => {
      const res = await legacyPost(app, legacyRequest('tools/list', {}, 42), {
        'mcp-protocol-version': '2026-07-28',
      }).expect(400);
      expect(res.body).toMatchObject({ id: 42, error: { code: -32602 } });
    });

    it('refuses an initialize whose header names 2026-07-28 without the claim: 400 -32020', async () => {
      const res = await legacyPost(app, legacyRequest('initialize', { protocolVersion: '2025-11-25' }, 43), {
        'mcp-protocol-version': '2026-07-28',
      }).expect(400);
      expect(res.body).toMatchObject({ id: 43, error: { code: -32020 } });
    });

    it('answers an invalid message with 400 -32600 on this leg too', async () => {
      const res = await legacyPost(app, { jsonrpc: '2.0', id: 44, method: 7 }).expect(400);
      expect(res.body.error.code).toBe(-32600);
    });

    it('answers JSON-RPC errors in-band with 200, as 2025 clients expect', async () => {
      const res = await legacyPost(app, legacyRequest('resources/read', { uri: 'test://missing' }, 45)).expect(200);
      expect(res.body).toMatchObject({ id: 45, error: { code: -32602, data: { uri: 'test://missing' } } });
      const unknown = await legacyPost(app, legacyRequest('no/such/method', {}, 46)).expect(200);
      expect(unknown.body).toMatchObject({ id: 46, error: { code: -32601 } });
    });

    it('does not know the 2026-only methods without their claim (server/discover, subscriptions/listen, tasks/*)', async () => {
      for (const method of ['server/discover', 'subscriptions/listen', 'tasks/get', 'tasks/update', 'tasks/cancel']) {
        const res = await legacyPost(app, legacyRequest(method, {}, 47)).expect(200);
        expect(res.body.error.code).toBe(-32601);
      }
    });
  });

  describe('methods 2026-07-28 removed, answered as 2025 did', () => {
    it.each([
      ['ping', {}],
      ['logging/setLevel', { level: 'debug' }],
      ['resources/subscribe', { uri: 'test://doc' }],
      ['resources/unsubscribe', { uri: 'test://doc' }],
    ])('%s → {}', async (method, params) => {
      const res = await legacyPost(app, legacyRequest(method, params, 'r1')).expect(200);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 'r1', result: {} });
    });

    it('checks their params', async () => {
      expect(
        (await legacyPost(app, legacyRequest('logging/setLevel', { level: 'loud' })).expect(200)).body.error.code,
      ).toBe(-32602);
      expect((await legacyPost(app, legacyRequest('resources/subscribe', {})).expect(200)).body.error.code).toBe(
        -32602,
      );
    });

    it('keeps them 404 -32601 for a request that claims 2026-07-28', async () => {
      for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']) {
        const res = await createMcpTestClient(app).post(mcpMessage(method, {}, { id: 'm' }));
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe(-32601);
      }
    });
  });

  describe('results in the 2025 shape (the same handlers as 2026-07-28)', () => {
    const FORBIDDEN_KEYS = ['resultType', 'ttlMs', 'cacheScope'];
    const expectLegacyShape = (result: Record<string, unknown>) => {
      for (const key of FORBIDDEN_KEYS) expect(result).not.toHaveProperty(key);
      expect(
        (result._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo'],
      ).toBeUndefined();
    };

    it.each([
      [
        'tools/list',
        {},
        (r: Record<string, unknown>) =>
          expect((r.tools as Array<{ name: string }>).map((t) => t.name)).toContain('greet'),
      ],
      [
        'tools/call',
        { name: 'greet', arguments: { name: 'Ada' } },
        (r: Record<string, unknown>) => expect(r).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] }),
      ],
      [
        'resources/list',
        {},
        (r: Record<string, unknown>) =>
          expect(r.resources).toEqual([{ uri: 'test://doc', name: 'Doc', mimeType: 'text/plain' }]),
      ],
      [
        'resources/templates/list',
        {},
        (r: Record<string, unknown>) =>
          expect(r.resourceTemplates).toEqual([{ uriTemplate: 'test://items/{id}', name: 'Item' }]),
      ],
      [
        'resources/read',
        { uri: 'test://items/7' },
        (r: Record<string, unknown>) =>
          expect(r).toEqual({ contents: [{ uri: 'test://items/7', text: 'item test://items/7' }] }),
      ],
      [
        'prompts/list',
        {},
        (r: Record<string, unknown>) =>
          expect((r.prompts as Array<{ name: string }>).map((p) => p.name)).toEqual(['hello', 'ask_context']),
      ],
      [
        'prompts/get',
        { name: 'hello', arguments: { who: 'Ada' } },
        (r: Record<string, unknown>) =>
          expect(r).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }] }),
      ],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'hello' }, argument: { name: 'who', value: 'A' } },
        (r: Record<string, unknown>) =>
          expect(r).toEqual({ completion: { values: ['Ada', 'Alan'], total: 2, hasMore: false } }),
      ],
    ] as const)('%s', async (method, params, check) => {
      const res = await legacyPost(app, legacyRequest(method, params as Record<string, unknown>)).expect(200);
      expect(res.headers['mcp-session-id']).toBeUndefined();
      expectLegacyShape(res.body.result);
      check(res.body.result);
    });

    it('the same tools/call through the 2026 path carries the 2026 fields', async () => {
      const res = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'greet', arguments: { name: 'Ada' } }),
      );
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'dual' } },
      });
    });
  });

  describe('logs and progress on the POST stream', () => {
    it('sends logs by default and progress when asked, then the result, as SSE', async () => {
      const body = legacyRequest('tools/call', { name: 'chatty', arguments: {}, _meta: { progressToken: 'p1' } });
      const res = await legacyPost(app, body).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      const messages = sseMessages(res.text);
      expect(messages.map((m) => m.method ?? 'result')).toEqual([
        'notifications/message',
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
        'result',
      ]);
      expect(messages[0].params).toEqual({ level: 'debug', data: 'starting' });
      expect(messages[1].params).toEqual({ progressToken: 'p1', progress: 1, total: 2 });
      expect(messages[4]).toMatchObject({ id: body.id, result: { content: [{ text: 'protocol 2025-11-25' }] } });
    });

    it('answers JSON while nothing is sent before the result', async () => {
      const res = await legacyPost(app, legacyRequest('tools/call', { name: 'greet', arguments: {} })).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });
  });

  describe('server→client requests, answered by POSTing the reply', () => {
    it('elicitation: the request rides the call stream with a srv- id, the reply gets 202 and the tool finishes', async () => {
      const body = legacyRequest('tools/call', { name: 'ask_name', arguments: {} });
      const call = await callAnswering(url, body, () => elicitAnswer('Ada'));
      expect(call.requests).toHaveLength(1);
      expect(call.requests[0]).toMatchObject({
        method: 'elicitation/create',
        params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_FORM },
      });
      expect(call.requests[0].id).toMatch(/^srv-[0-9a-f-]{36}$/);
      expect(call.replyStatuses).toEqual([202]);
      expect(call.response).toEqual({
        jsonrpc: '2.0',
        id: body.id,
        result: { content: [{ type: 'text', text: 'Hello, Ada!' }] },
      });
      expect(call.headers.get('mcp-session-id')).toBeNull();
    });

    it('a declined elicitation reaches the handler as it came', async () => {
      const call = await callAnswering(url, legacyRequest('tools/call', { name: 'ask_name', arguments: {} }), () => ({
        result: { action: 'decline' },
      }));
      expect((call.response.result as { content: Array<{ text: string }> }).content[0].text).toBe('No name (decline)');
    });

    it('sampling', async () => {
      const call = await callAnswering(url, legacyRequest('tools/call', { name: 'ask_model', arguments: {} }), () => ({
        result: SAMPLED,
      }));
      expect(call.requests.map((r) => r.method)).toEqual(['sampling/createMessage']);
      expect(call.requests[0].params).toMatchObject({
        maxTokens: 10,
        messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
      });
      expect((call.response.result as { content: Array<{ text: string }> }).content[0].text).toBe(
        'model said {"type":"text","text":"Paris"}',
      );
    });

    it('roots', async () => {
      const call = await callAnswering(url, legacyRequest('tools/call', { name: 'list_roots', arguments: {} }), () => ({
        result: ROOTS,
      }));
      expect(call.requests.map((r) => r.method)).toEqual(['roots/list']);
      expect((call.response.result as { content: Array<{ text: string }> }).content[0].text).toBe('file:///work');
    });

    it('several rounds: each asked after the last is answered, state carried, the same keys', async () => {
      const call = await callAnswering(url, legacyRequest('tools/call', { name: 'two_steps', arguments: {} }), (r) =>
        r.params?.message === 'Step 1: name?'
          ? elicitAnswer('Ada')
          : { result: { action: 'accept', content: { color: 'blue' } } },
      );
      expect(call.requests.map((r) => r.params?.message)).toEqual(['Step 1: name?', 'Step 2: color?']);
      expect(new Set(call.requests.map((r) => r.id)).size).toBe(2);
      expect((call.response.result as { content: Array<{ text: string }> }).content[0].text).toBe(
        'Ada likes blue (round 2)',
      );
    });

    it('InputRequired thrown by hand: every request of the round is sent at once, answers come back under its keys', async () => {
      const call = await callAnswering(url, legacyRequest('tools/call', { name: 'by_hand', arguments: {} }), (r) => ({
        result: r.method === 'roots/list' ? ROOTS : SAMPLED,
      }));
      expect(call.requests.map((r) => r.method).sort()).toEqual(['roots/list', 'sampling/createMessage']);
      expect((call.response.result as { content: Array<{ text: string }> }).content[0].text).toBe('keys model,where');
    });

    it('a prompt that elicits (not only tools)', async () => {
      const call = await callAnswering(url, legacyRequest('prompts/get', { name: 'ask_context' }), () => ({
        result: { action: 'accept', content: { context: 'tests' } },
      }));
      expect(call.response.result).toEqual({
        messages: [{ role: 'user', content: { type: 'text', text: 'context: tests' } }],
      });
    });

    it('the same tool completes an input_required round on the 2026 path', async () => {
      const first = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'ask_name', arguments: {} }, { clientCapabilities: { elicitation: {} } }),
      );
      expect(first.status).toBe(200);
      expect(first.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { user_name: { method: 'elicitation/create' } },
      });
      const retry = await createMcpTestClient(app).post(
        mcpMessage(
          'tools/call',
          {
            name: 'ask_name',
            arguments: {},
            inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
            requestState: first.body.result.requestState,
          },
          { clientCapabilities: { elicitation: {} } },
        ),
      );
      expect(retry.status).toBe(200);
      expect(retry.body.result.content[0].text).toBe('Hello, Ada!');
    });

    it('a client without the capability (-32601) ends the tool call with a tool error saying so', async () => {
      const call = await callAnswering(url, legacyRequest('tools/call', { name: 'ask_model', arguments: {} }), () => ({
        error: { code: -32601, message: 'Method not found' },
      }));
      expect(call.response.result).toEqual({
        isError: true,
        content: [
          {
            type: 'text',
            text: 'Error: the client does not support sampling/createMessage (it answered -32601 Method not found)',
          },
        ],
      });
    });

    it('a client that answers with an error ends a prompt with -32603', async () => {
      const call = await callAnswering(url, legacyRequest('prompts/get', { name: 'ask_context' }), () => ({
        error: { code: -1, message: 'no' },
      }));
      expect(call.response.error).toMatchObject({
        code: -32603,
        message: expect.stringContaining('refused elicitation/create'),
      });
    });
  });

  describe('hostile replies', () => {
    it('refuses a reply to an id nobody waits for: 400, no id, no effect', async () => {
      const res = await postReply(url, {
        jsonrpc: '2.0',
        id: 'srv-00000000-0000-0000-0000-000000000000',
        result: { action: 'accept', content: {} },
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ id: null, error: { code: -32600 } });
      expect(res.sessionId).toBeNull();
    });

    it('refuses malformed replies with 400 and leaves the waiting call alone; the real answer still lands', async () => {
      const body = legacyRequest('tools/call', { name: 'ask_name', arguments: {} });
      const live = await LiveResponse.post(url, body, legacyHeaders());
      const asked = await live.next();
      for (const bad of [
        { jsonrpc: '2.0', id: asked.id, result: 'yes' },
        { jsonrpc: '2.0', id: asked.id, result: {}, error: { code: 1, message: 'x' } },
        { jsonrpc: '2.0', id: 12, result: {} },
        { jsonrpc: '2.0', id: asked.id, error: { message: 'no code' } },
      ]) {
        expect((await postReply(url, bad)).status).toBe(400);
      }
      expect(driver.legacy?.waiting).toBe(1);
      expect((await postReply(url, { jsonrpc: '2.0', id: asked.id, ...elicitAnswer('Ada') })).status).toBe(202);
      expect((await live.next()).result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
      live.close();
      expect((await postReply(url, { jsonrpc: '2.0', id: asked.id, ...elicitAnswer('Eve') })).status).toBe(400);
    });

    it('a client that goes away while asked withdraws the request: nothing is left waiting', async () => {
      const live = await LiveResponse.post(
        url,
        legacyRequest('tools/call', { name: 'ask_name', arguments: {} }),
        legacyHeaders(),
      );
      const asked = await live.next();
      expect(driver.legacy?.waiting).toBe(1);
      live.close();
      await waitUntil(() => driver.legacy?.waiting === 0);
      expect((await postReply(url, { jsonrpc: '2.0', id: asked.id, ...elicitAnswer('Ada') })).status).toBe(400);
    });
  });
});

describe('2025-era limits: oversized replies, waiting calls bounded and timed out', () => {
  let app: INestApplication;
  let url: string;
  let driver: McpHttpDriver;

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({
        name: 'bounded',
        version: '1.0.0',
        legacy: { maxWaitingCalls: 3, replyTimeoutMs: 300, maxReplyBytes: 2048 },
      }),
    ]);
    register(app.get(MCPServer));
    driver = app.get(McpHttpDriver);
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  it('refuses an oversized reply with 413 and keeps the call waiting for a proper one', async () => {
    const body = legacyRequest('tools/call', { name: 'ask_name', arguments: {} });
    const live = await LiveResponse.post(url, body, legacyHeaders());
    const asked = await live.next();
    const big = await postReply(url, { jsonrpc: '2.0', id: asked.id, ...elicitAnswer('x'.repeat(4096)) });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(driver.legacy?.waiting).toBe(1);
    expect((await postReply(url, { jsonrpc: '2.0', id: asked.id, ...elicitAnswer('Ada') })).status).toBe(202);
    expect((await live.next()).result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    live.close();
  });

  it('a flood of calls waiting for input that never comes: bounded, the excess told to come back later, nothing left', async () => {
    const calls = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        legacyPost(app, legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, `flood-${i}`)),
      ),
    );
    const refused = calls.filter((res) => res.status === 429);
    expect(refused).toHaveLength(5);
    for (const res of refused) {
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error).toMatchObject({
        code: -32023,
        message: expect.stringMatching(/too many calls are waiting for client input/),
        data: { retryAfterMs: 1000 },
      });
    }
    const texts = calls
      .filter((res) => res.status === 200)
      .map((res) => {
        const last = res.headers['content-type'].startsWith('text/event-stream')
          ? sseMessages(res.text).at(-1)!
          : res.body;
        expect(last.result.isError).toBe(true);
        return last.result.content[0].text as string;
      });
    expect(texts.filter((t) => /did not answer elicitation\/create within 300 ms/.test(t))).toHaveLength(3);
    expect(driver.legacy?.waiting).toBe(0);
    expect(driver.legacy?.requests.size).toBe(0);
    expect(app.get(MCPServer).load.calls).toBe(0);
  });
});

describe('2025-era calls waiting for input at shutdown', () => {
  it('end with a clean tool error on their stream, and nothing is left waiting', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'closing', version: '1.0.0' })]);
    register(app.get(MCPServer));
    const driver = app.get(McpHttpDriver);
    const url = await listenOnLoopback(app);
    const live = await LiveResponse.post(
      url,
      legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, 'bye'),
      legacyHeaders(),
    );
    expect((await live.next()).method).toBe('elicitation/create');
    // Nest's shutdown drains the driver first (what ends the wait), then closes the server.
    const closing = app.close();
    const last = await live.next();
    expect(last).toMatchObject({
      id: 'bye',
      result: {
        isError: true,
        content: [{ text: 'Error: the server stopped waiting for the answer to elicitation/create' }],
      },
    });
    await closing;
    expect(driver.legacy?.waiting).toBe(0);
  });
});

describe('2025-era replies with authorization on: bound to the caller', () => {
  let app: INestApplication;
  let url: string;
  let issuer: TestIssuer;
  let driver: McpHttpDriver;

  beforeAll(async () => {
    issuer = await createTestIssuer();
    app = await createAuthApp({ jwt: { issuer: ISSUER, jwks: issuer.jwks } });
    register(app.get(MCPServer));
    driver = app.get(McpHttpDriver);
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  const as = async (sub: string) => ({ ...legacyHeaders(), authorization: `Bearer ${await issuer.token({ sub })}` });

  it("refuses another principal's reply with 403 and no effect; the caller's own reply lands", async () => {
    const alice = await as('alice');
    const live = await LiveResponse.post(
      url,
      legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, 'a1'),
      alice,
    );
    const asked = await live.next();
    expect(asked.method).toBe('elicitation/create');

    const forged = await postReply(
      url,
      { jsonrpc: '2.0', id: asked.id, ...elicitAnswer('Mallory') },
      await as('mallory'),
    );
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.body)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(driver.legacy?.waiting).toBe(1);

    // A fresh token of the same user (a refresh) is the same caller.
    expect(
      (await postReply(url, { jsonrpc: '2.0', id: asked.id, ...elicitAnswer('Alice') }, await as('alice'))).status,
    ).toBe(202);
    expect((await live.next()).result).toEqual({ content: [{ type: 'text', text: 'Hello, Alice!' }] });
    live.close();
    expect(driver.legacy?.waiting).toBe(0);
  });

  it('refuses a reply without a token with 401, before it is looked at', async () => {
    const alice = await as('alice');
    const live = await LiveResponse.post(
      url,
      legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, 'a2'),
      alice,
    );
    const asked = await live.next();
    expect((await postReply(url, { jsonrpc: '2.0', id: asked.id, ...elicitAnswer('Nobody') })).status).toBe(401);
    expect(driver.legacy?.waiting).toBe(1);
    live.close();
    await waitUntil(() => driver.legacy?.waiting === 0);
  });

  it('serves initialize only to an authenticated caller too', async () => {
    expect((await legacyPost(app, legacyRequest('initialize', { protocolVersion: '2025-11-25' }))).status).toBe(401);
    const res = await legacyPost(
      app,
      legacyRequest('initialize', { protocolVersion: '2025-11-25' }),
      await as('alice'),
    ).expect(200);
    expect(res.body.result.serverInfo.name).toBe('files');
  });
});

describe('legacy: off', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'modern-only', version: '1.0.0', legacy: { mode: 'off' } })]);
    register(app.get(MCPServer));
  });
  afterAll(() => app.close());

  it('refuses initialize with 400 -32022 naming the supported revision and the requested one', async () => {
    const res = await legacyPost(
      app,
      legacyRequest('initialize', { protocolVersion: '2025-06-18', capabilities: {} }, 9),
      { 'mcp-protocol-version': undefined },
    ).expect(400);
    expect(res.body).toMatchObject({
      id: 9,
      error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-06-18' } },
    });
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  it('refuses any other request without the claim the same way', async () => {
    const res = await legacyPost(app, legacyRequest('tools/list', {}, 10)).expect(400);
    expect(res.body).toMatchObject({
      id: 10,
      error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } },
    });
  });

  it('still serves 2026-07-28', async () => {
    expect((await createMcpTestClient(app).post(mcpMessage('tools/list'))).status).toBe(200);
  });

  it('refuses an unknown option value at start-up', () => {
    expect(() => new McpKernel({ name: 'k', version: '1', legacy: { mode: 'sessionful' as 'off' } })).toThrow(
      /legacy.mode must be 'stateless', 'stateful' or 'off'/,
    );
  });
});

async function waitUntil(condition: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
