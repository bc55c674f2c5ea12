import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { InputRequired, MCPServer, McpModule, type McpContext } from '../../src/index.js';
import type { InputRequest } from '../../src/protocol/mcp-types.js';
import { RequestStateCodec } from '../../src/server/input/request-state-codec.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { inputRequired } from '../../src/server/input-required.js';

const SECRET = 'input-required-e2e-secret-0123456789abcdef';
const ALL_CAPS = { elicitation: {}, sampling: {}, roots: { listChanged: true } };
const CONFIRM_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
const CONFIRM: InputRequest = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Delete it?', requestedSchema: CONFIRM_SCHEMA },
};
const yes = { action: 'accept', content: { ok: true } };
const sampled = {
  role: 'assistant',
  content: { type: 'text', text: 'Hello there' },
  model: 'test-model',
  stopReason: 'endTurn',
};
const roots = { roots: [{ uri: 'file:///work', name: 'Work' }] };

type Result = Record<string, any>;

/** Calls a tool with every input capability declared unless told otherwise. */
function call(
  app: INestApplication,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  caps: object = ALL_CAPS,
) {
  return createMcpTestClient(app).post(
    mcpMessage(
      'tools/call',
      { name, arguments: args, ...extra },
      { clientCapabilities: caps as Record<string, unknown> },
    ),
  );
}

describe('input_required over HTTP', () => {
  let app: INestApplication;
  let server: MCPServer;
  const runs: Record<string, number> = {};
  const count = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
  let payments = 0;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'mrtr', version: '1.0.0', requestState: { secret: SECRET } })]);
    server = app.get(MCPServer);
    const pathSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const deleted = (ctx: McpContext) => `Deleted ${(ctx.state as { path: string }).path}`;

    // The three ways to ask.
    server.registerTool(
      'delete_thrown',
      'Deletes after confirmation',
      pathSchema,
      (args: { path: string }, responses, ctx) => {
        count('delete_thrown');
        if (!responses.confirm) throw new InputRequired({ confirm: CONFIRM }, { state: { path: args.path } });
        return deleted(ctx);
      },
    );
    server.registerTool(
      'delete_returned',
      'Deletes after confirmation',
      pathSchema,
      (args: { path: string }, responses, ctx) => {
        count('delete_returned');
        if (!responses.confirm) return inputRequired({ confirm: CONFIRM }, { state: { path: args.path } });
        return deleted(ctx);
      },
    );
    server.registerTool(
      'delete_helper',
      'Deletes after confirmation',
      pathSchema,
      async (args: { path: string }, _responses, ctx) => {
        count('delete_helper');
        ctx.state ??= { path: args.path };
        const answer = await ctx.elicit('Delete it?', CONFIRM_SCHEMA, { key: 'confirm' });
        if (answer.action !== 'accept' || answer.content?.ok !== true) return 'Kept it';
        return deleted(ctx);
      },
    );

    server.registerTool(
      'paged',
      'Mutates its arguments before asking',
      { type: 'object', properties: { limit: { type: 'integer' } } },
      async (args: { limit?: number }, _r, ctx) => {
        args.limit ??= 10;
        await ctx.elicit('Continue?', CONFIRM_SCHEMA, { key: 'confirm' });
        return `limit ${args.limit}`;
      },
    );

    // Three rounds written top to bottom.
    server.registerTool('wizard', 'Asks a name, then a colour', { type: 'object' }, async (_args, _responses, ctx) => {
      count('wizard');
      const name = await ctx.elicit('Step 1: What is your name?', {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      });
      const color = await ctx.elicit('Step 2: What is your favourite colour?', {
        type: 'object',
        properties: { color: { type: 'string', enum: ['red', 'blue'] } },
        required: ['color'],
      });
      return `${name.content!.name} likes ${color.content!.color} (round ${ctx.round})`;
    });

    // Elicitation, sampling and roots in one round.
    server.registerTool('gather', 'Needs everything at once', { type: 'object' }, async (_args, _responses, ctx) => {
      const [user, greeting, where] = await Promise.all([
        ctx.elicit(
          'What is your name?',
          { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          { key: 'user_name' },
        ),
        ctx.sample('Generate a greeting', { key: 'greeting', maxTokens: 50 }),
        ctx.listRoots({ key: 'client_roots' }),
      ]);
      return `${(greeting.content as { text: string }).text}, ${user.content!.name}, in ${where.map((r) => r.uri).join(',')}`;
    });

    // Capabilities.
    server.registerTool('summarize', 'Needs sampling', { type: 'object' }, async (_args, _responses, ctx) => {
      const answer = await ctx.sample('Summarize');
      return (answer.content as { text: string }).text;
    });
    server.registerTool(
      'greet_fallback',
      'Asks the name when it can',
      { type: 'object' },
      async (_args, _responses, ctx) => {
        if (!ctx.supports('elicitation')) return 'Hello, stranger';
        const answer = await ctx.elicit('Name?', {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
        });
        return `Hello, ${answer.content!.name}`;
      },
    );
    server.registerTool('login', 'URL-mode elicitation', { type: 'object' }, async (_args, _responses, ctx) => {
      const answer = await ctx.elicitUrl('Sign in', 'https://example.com/login');
      return `Login ${answer.action}`;
    });
    server.registerTool('agent', 'Sampling with tools', { type: 'object' }, async (_args, _responses, ctx) => {
      await ctx.sample('Plan', { tools: [{ name: 'search', inputSchema: { type: 'object' } }] });
      return 'planned';
    });

    server.registerTool('bad_ask', 'Asks for something that is not an input request', { type: 'object' }, () => {
      throw new InputRequired({ x: { method: 'tools/call', params: {} } as unknown as InputRequest });
    });

    // At-most-once.
    server.addTool({
      name: 'pay',
      description: 'Pays once per confirmation',
      inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      singleUseState: true,
      handler: async (args: { amount: number }, _responses, ctx) => {
        const answer = await ctx.elicit(`Pay ${args.amount}?`, CONFIRM_SCHEMA, { key: 'confirm' });
        if (answer.content?.ok !== true) return 'Not paid';
        payments++;
        return `Paid ${args.amount}`;
      },
    });

    // Prompts and resources.
    server.addPrompt({
      name: 'contextual',
      description: 'A prompt that asks for context',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit(
          'What context should the prompt use?',
          {
            type: 'object',
            properties: { context: { type: 'string' } },
            required: ['context'],
          },
          { key: 'user_context' },
        );
        return `Use this context: ${answer.content!.context}`;
      },
    });
    server.addResource({
      uri: 'vault://note',
      name: 'note',
      mimeType: 'text/plain',
      cache: { ttlMs: 60_000, cacheScope: 'public' },
      handler: async (_uri, _vars, ctx) => {
        const where = await ctx.listRoots({ key: 'roots' });
        return `note for ${where[0].uri}`;
      },
    });
    server.addPrompt({
      name: 'plain',
      description: 'A prompt with a completer that tries to ask for input',
      arguments: [{ name: 'topic', required: false }],
      handler: () => 'plain',
      complete: {
        topic: () => {
          throw new InputRequired({ x: CONFIRM });
        },
      },
    });
  });
  afterAll(() => app.close());

  describe('three ways to ask, one wire result', () => {
    it('gives the kernel contract for a thrown InputRequired, and the same result for a return and a helper', async () => {
      const results: Result[] = [];
      for (const tool of ['delete_thrown', 'delete_returned', 'delete_helper']) {
        const res = await call(app, tool, { path: '/tmp/x' });
        expect(res.status).toBe(200);
        results.push(res.body.result);
      }
      for (const result of results) {
        expect(result).toEqual({
          resultType: 'input_required',
          inputRequests: { confirm: CONFIRM },
          requests: { confirm: CONFIRM },
          content: [{ type: 'text', text: 'Additional client input is required before this tool can finish.' }],
          requestState: expect.stringMatching(/^v1\./),
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mrtr', version: '1.0.0' } },
        });
        expect(result).not.toHaveProperty('ttlMs');
        expect(result).not.toHaveProperty('cacheScope');
      }
    });

    it.each(['delete_thrown', 'delete_returned', 'delete_helper'])(
      '%s completes on the retry with the verified state',
      async (tool) => {
        const r1 = await call(app, tool, { path: '/tmp/x' });
        expect(r1.status).toBe(200);
        const r2 = await call(
          app,
          tool,
          { path: '/tmp/x' },
          { inputResponses: { confirm: yes }, requestState: r1.body.result.requestState },
        );
        expect(r2.status).toBe(200);
        expect(r2.body.result).toMatchObject({
          resultType: 'complete',
          content: [{ type: 'text', text: 'Deleted /tmp/x' }],
        });
        expect(r2.body.result.isError).toBeUndefined();
      },
    );

    it('returns a declined elicitation to the handler instead of asking again', async () => {
      const r1 = await call(app, 'delete_helper', { path: '/tmp/x' });
      const r2 = await call(
        app,
        'delete_helper',
        { path: '/tmp/x' },
        { inputResponses: { confirm: { action: 'decline' } }, requestState: r1.body.result.requestState },
      );
      expect(r2.body.result.content).toEqual([{ type: 'text', text: 'Kept it' }]);
    });
  });

  describe('multiple rounds', () => {
    it('runs a three-round ctx.elicit tool, with a new state each round', async () => {
      const before = runs.wizard ?? 0;
      const reply = await call(app, 'wizard', {});
      expect(reply.status).toBe(200);
      const r1 = reply.body.result;
      expect(r1.resultType).toBe('input_required');
      expect(r1.inputRequests.elicit_0.params.message).toBe('Step 1: What is your name?');
      const r2 = (
        await call(
          app,
          'wizard',
          {},
          {
            inputResponses: { elicit_0: { action: 'accept', content: { name: 'Alice' } } },
            requestState: r1.requestState,
          },
        )
      ).body.result;
      expect(r2.resultType).toBe('input_required');
      expect(Object.keys(r2.inputRequests)).toEqual(['elicit_1']);
      expect(r2.requestState).not.toBe(r1.requestState);
      // Round 3 carries only the newest answer: the first travels in the signed state.
      const r3 = (
        await call(
          app,
          'wizard',
          {},
          {
            inputResponses: { elicit_1: { action: 'accept', content: { color: 'blue' } } },
            requestState: r2.requestState,
          },
        )
      ).body.result;
      expect(r3).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'Alice likes blue (round 2)' }],
      });
      expect(runs.wizard - before).toBe(3);
    });

    it('binds the state to the arguments as sent, even when the handler changes its copy', async () => {
      const r1 = (await call(app, 'paged', {})).body.result;
      const r2 = await call(app, 'paged', {}, { inputResponses: { confirm: yes }, requestState: r1.requestState });
      expect(r2.status).toBe(200);
      expect(r2.body.result.content).toEqual([{ type: 'text', text: 'limit 10' }]);
    });

    it('keeps an answer settled in an earlier round even when the client resends it changed', async () => {
      const r1 = (await call(app, 'wizard', {})).body.result;
      const r2 = (
        await call(
          app,
          'wizard',
          {},
          {
            inputResponses: { elicit_0: { action: 'accept', content: { name: 'Alice' } } },
            requestState: r1.requestState,
          },
        )
      ).body.result;
      const r3 = await call(
        app,
        'wizard',
        {},
        {
          inputResponses: {
            elicit_0: { action: 'accept', content: { name: 'Mallory' } },
            elicit_1: { action: 'accept', content: { color: 'red' } },
          },
          requestState: r2.requestState,
        },
      );
      expect(r3.body.result.content).toEqual([{ type: 'text', text: 'Alice likes red (round 2)' }]);
    });

    it('asks for elicitation, sampling and roots in one round and completes with all three answers', async () => {
      const reply2 = await call(app, 'gather', {});
      expect(reply2.status).toBe(200);
      const r1 = reply2.body.result;
      expect(r1.inputRequests).toEqual({
        user_name: { method: 'elicitation/create', params: expect.objectContaining({ message: 'What is your name?' }) },
        greeting: {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          },
        },
        client_roots: { method: 'roots/list', params: {} },
      });
      const r2 = await call(
        app,
        'gather',
        {},
        {
          inputResponses: {
            user_name: { action: 'accept', content: { name: 'Bob' } },
            greeting: sampled,
            client_roots: roots,
          },
          requestState: r1.requestState,
        },
      );
      expect(r2.body.result.content).toEqual([{ type: 'text', text: 'Hello there, Bob, in file:///work' }]);
    });

    it('asks again only for what is still missing', async () => {
      const r1 = (await call(app, 'gather', {})).body.result;
      const r2 = (
        await call(app, 'gather', {}, { inputResponses: { greeting: sampled }, requestState: r1.requestState })
      ).body.result;
      expect(r2.resultType).toBe('input_required');
      expect(Object.keys(r2.inputRequests).sort()).toEqual(['client_roots', 'user_name']);
      const r3 = await call(
        app,
        'gather',
        {},
        {
          inputResponses: { user_name: { action: 'accept', content: { name: 'Cy' } }, client_roots: roots },
          requestState: r2.requestState,
        },
      );
      expect(r3.body.result.content).toEqual([{ type: 'text', text: 'Hello there, Cy, in file:///work' }]);
    });
  });

  describe('request state that does not verify', () => {
    async function roundOne(tool = 'delete_thrown', path = '/tmp/x'): Promise<string> {
      return (await call(app, tool, { path })).body.result.requestState;
    }

    async function expectRejected(tool: string, args: Record<string, unknown>, requestState: unknown, detail: string) {
      const before = runs[tool] ?? 0;
      const res = await call(app, tool, args, { inputResponses: { confirm: yes }, requestState });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: 'Invalid or expired requestState',
          data: { reason: 'invalid_request_state', detail },
        },
      });
      expect(runs[tool] ?? 0).toBe(before);
    }

    it('rejects a state with one changed byte in its payload', async () => {
      const state = await roundOne();
      const i = state.indexOf('.') + 10;
      await expectRejected(
        'delete_thrown',
        { path: '/tmp/x' },
        state.slice(0, i) + (state[i] === 'a' ? 'b' : 'a') + state.slice(i + 1),
        'signature',
      );
    });

    it('rejects a state with junk appended (the conformance -TAMPERED probe)', async () => {
      await expectRejected('delete_thrown', { path: '/tmp/x' }, `${await roundOne()}-TAMPERED`, 'signature');
    });

    it('rejects a truncated state', async () => {
      await expectRejected('delete_thrown', { path: '/tmp/x' }, (await roundOne()).slice(0, -4), 'signature');
    });

    it('rejects a malformed state', async () => {
      await expectRejected('delete_thrown', { path: '/tmp/x' }, 'not-a-state', 'malformed');
      await expectRejected('delete_thrown', { path: '/tmp/x' }, 42, 'malformed');
    });

    it('rejects a state issued for another tool', async () => {
      await expectRejected('delete_returned', { path: '/tmp/x' }, await roundOne('delete_thrown'), 'binding');
    });

    it('rejects a state issued for other arguments', async () => {
      await expectRejected(
        'delete_thrown',
        { path: '/etc/passwd' },
        await roundOne('delete_thrown', '/tmp/x'),
        'binding',
      );
    });

    it('rejects a state issued for another method with the same name', async () => {
      const r1 = await createMcpTestClient(app).post(
        mcpMessage('prompts/get', { name: 'contextual' }, { clientCapabilities: ALL_CAPS }),
      );
      await expectRejected('delete_thrown', { path: '/tmp/x' }, r1.body.result.requestState, 'binding');
    });

    it('rejects a state signed with a key the server does not know', async () => {
      const forged = new RequestStateCodec({ secret: 'some-other-secret-that-is-long-enough!!' }).seal(
        { r: 1, s: { path: '/tmp/x' } },
        'anything',
      );
      await expectRejected('delete_thrown', { path: '/tmp/x' }, forged, 'signature');
    });

    it('binds the state to the principal', async () => {
      const body = (id: number, extra: Record<string, unknown> = {}) =>
        mcpMessage(
          'tools/call',
          { name: 'delete_thrown', arguments: { path: '/tmp/x' }, ...extra },
          { id, clientCapabilities: ALL_CAPS },
        );
      const r1 = await server.handleRequest(body(1), { principal: { sub: 'alice' } });
      const requestState = (r1 as Result).result.requestState;
      const asBob = await server.handleRequest(body(2, { inputResponses: { confirm: yes }, requestState }), {
        principal: { sub: 'bob' },
      });
      expect((asBob as Result).error).toMatchObject({ code: -32602, data: { detail: 'binding' } });
      const anonymous = await server.handleRequest(body(3, { inputResponses: { confirm: yes }, requestState }));
      expect((anonymous as Result).error).toMatchObject({ code: -32602, data: { detail: 'binding' } });
      const asAlice = await server.handleRequest(body(4, { inputResponses: { confirm: yes }, requestState }), {
        principal: { sub: 'alice' },
      });
      expect((asAlice as Result).result.content).toEqual([{ type: 'text', text: 'Deleted /tmp/x' }]);
    });
  });

  describe('capabilities', () => {
    it('answers -32021 / 400 with requiredCapabilities when the only request needs an undeclared capability', async () => {
      const res = await call(app, 'summarize', {}, {}, {});
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: -32021,
        message: expect.stringContaining('sampling'),
        data: { requiredCapabilities: { sampling: {} } },
      });
    });

    it('leaves out the requests the client cannot answer and sends the rest', async () => {
      const res = await call(app, 'gather', {}, {}, { sampling: {} });
      expect(res.status).toBe(200);
      expect(res.body.result.resultType).toBe('input_required');
      expect(Object.keys(res.body.result.inputRequests)).toEqual(['greeting']);
    });

    it('lets a tool fall back when a capability is absent', async () => {
      const without = await call(app, 'greet_fallback', {}, {}, { sampling: {} });
      expect(without.status).toBe(200);
      expect(without.body.result.content).toEqual([{ type: 'text', text: 'Hello, stranger' }]);
      const withIt = await call(app, 'greet_fallback', {}, {}, { elicitation: { form: {} } });
      expect(withIt.status).toBe(200);
      expect(withIt.body.result.resultType).toBe('input_required');
    });

    it('tells URL-mode elicitation from form mode', async () => {
      const formOnly = await call(app, 'login', {}, {}, { elicitation: {} });
      expect(formOnly.status).toBe(400);
      expect(formOnly.body.error.data).toEqual({ requiredCapabilities: { elicitation: { url: {} } } });
      const urlOnly = await call(app, 'greet_fallback', {}, {}, { elicitation: { url: {} } });
      expect(urlOnly.status).toBe(200);
      expect(urlOnly.body.result.content).toEqual([{ type: 'text', text: 'Hello, stranger' }]);
      const withUrl = await call(app, 'login', {}, {}, { elicitation: { url: {} } });
      expect(withUrl.status).toBe(200);
      expect(withUrl.body.result.inputRequests.elicit_0).toEqual({
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' },
      });
    });

    it('needs sampling.tools for sampling with tools', async () => {
      const plain = await call(app, 'agent', {}, {}, { sampling: {} });
      expect(plain.status).toBe(400);
      expect(plain.body.error.data).toEqual({ requiredCapabilities: { sampling: { tools: {} } } });
      const withTools = await call(app, 'agent', {}, {}, { sampling: { tools: {} } });
      expect(withTools.status).toBe(200);
      expect(withTools.body.result.inputRequests.sample_0.method).toBe('sampling/createMessage');
    });

    it('needs roots for roots/list', async () => {
      const res = await createMcpTestClient(app).post(
        mcpMessage('resources/read', { uri: 'vault://note' }, { clientCapabilities: { sampling: {} } }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { roots: {} } } });
    });
  });

  it('refuses an input request that is not elicitation, sampling or roots', async () => {
    const res = await call(app, 'bad_ask', {});
    expect(res.status).toBe(200);
    expect(res.body.error).toEqual({
      code: -32603,
      message: 'Error: input request "x" must be elicitation/create, sampling/createMessage or roots/list',
      data: { correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
  });

  describe('answers', () => {
    async function retry(tool: string, inputResponses: unknown, withState = true, status = 200) {
      const extra: Record<string, unknown> = { inputResponses };
      if (withState) extra.requestState = (await call(app, tool, { path: '/tmp/x' })).body.result.requestState;
      const res = await call(app, tool, { path: '/tmp/x' }, extra);
      expect(res.status).toBe(status);
      return res;
    }

    it.each([
      ['a number', 12345],
      ['an unknown action', { action: 'maybe' }],
      ['content that breaks the requested schema', { action: 'accept', content: { ok: 'yes' } }],
      ['content with a nested object', { action: 'accept', content: { ok: { deep: true } } }],
      ['a sampling result where an elicitation was asked', sampled],
    ])('asks again when the answer is %s', async (_label, answer) => {
      const res = await retry('delete_helper', { confirm: answer });
      expect(res.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: CONFIRM } });
    });

    it('asks again when the answer is missing or under another key, with or without state', async () => {
      for (const withState of [true, false]) {
        const res = await retry('delete_helper', { wrong_key: yes }, withState);
        expect(res.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: CONFIRM } });
      }
    });

    it('ignores unknown extra keys', async () => {
      const res = await retry('delete_helper', {
        confirm: yes,
        unknown_extra_key: yes,
        another_unexpected: { foo: 1 },
      });
      expect(res.body.result.content).toEqual([{ type: 'text', text: 'Deleted /tmp/x' }]);
    });

    it.each([
      ['null', null],
      ['an array', [yes]],
      ['a string', 'yes'],
    ])('rejects inputResponses that is %s with -32602, before the handler runs', async (_label, inputResponses) => {
      const before = runs.delete_thrown;
      const res = await retry('delete_thrown', inputResponses, false, 400);
      expect(res.body.error).toEqual({ code: -32602, message: 'Invalid params: "inputResponses" must be an object' });
      expect(runs.delete_thrown).toBe(before);
    });

    it('never hands a raw handler an entry that is not an answer', async () => {
      const res = await retry('delete_thrown', { confirm: 12345 });
      expect(res.body.result.resultType).toBe('input_required');
    });

    it('asks again for a malformed sampling or roots answer', async () => {
      const r1 = (await call(app, 'gather', {})).body.result;
      const r2 = await call(
        app,
        'gather',
        {},
        {
          inputResponses: {
            user_name: { action: 'accept', content: { name: 'Bob' } },
            greeting: { role: 'assistant', content: 'not a content block', model: 'm' },
            client_roots: { roots: [{ uri: 'https://not-a-file-root' }] },
          },
          requestState: r1.requestState,
        },
      );
      expect(Object.keys(r2.body.result.inputRequests).sort()).toEqual(['client_roots', 'greeting']);
    });
  });

  describe('where input_required is allowed', () => {
    it('runs a prompts/get round and ends with messages, without the tool-only fields', async () => {
      const r1 = await createMcpTestClient(app).post(
        mcpMessage('prompts/get', { name: 'contextual' }, { clientCapabilities: ALL_CAPS }),
      );
      expect(r1.status).toBe(200);
      expect(r1.body.result).toEqual({
        resultType: 'input_required',
        inputRequests: { user_context: expect.objectContaining({ method: 'elicitation/create' }) },
        requestState: expect.any(String),
        _meta: expect.any(Object),
      });
      const r2 = await createMcpTestClient(app).post(
        mcpMessage(
          'prompts/get',
          {
            name: 'contextual',
            inputResponses: { user_context: { action: 'accept', content: { context: 'test context' } } },
            requestState: r1.body.result.requestState,
          },
          { clientCapabilities: ALL_CAPS },
        ),
      );
      expect(r2.status).toBe(200);
      expect(r2.body.result).toMatchObject({
        resultType: 'complete',
        messages: [{ role: 'user', content: { type: 'text', text: 'Use this context: test context' } }],
      });
    });

    it('runs a resources/read round: the interim result carries no cache hints, the final one says not to cache it', async () => {
      const r1 = await createMcpTestClient(app).post(
        mcpMessage('resources/read', { uri: 'vault://note' }, { clientCapabilities: ALL_CAPS }),
      );
      expect(r1.status).toBe(200);
      expect(r1.body.result.resultType).toBe('input_required');
      expect(r1.body.result.inputRequests).toEqual({ roots: { method: 'roots/list', params: {} } });
      expect(r1.body.result).not.toHaveProperty('ttlMs');
      expect(r1.body.result).not.toHaveProperty('cacheScope');
      const r2 = await createMcpTestClient(app).post(
        mcpMessage(
          'resources/read',
          { uri: 'vault://note', inputResponses: { roots }, requestState: r1.body.result.requestState },
          { clientCapabilities: ALL_CAPS },
        ),
      );
      expect(r2.status).toBe(200);
      expect(r2.body.result).toMatchObject({
        resultType: 'complete',
        contents: [{ uri: 'vault://note', mimeType: 'text/plain', text: 'note for file:///work' }],
        // Registered as public for a minute, but a read completed by a retry depends on the answers.
        ttlMs: 0,
        cacheScope: 'private',
      });
    });

    it('never answers input_required on other methods', async () => {
      for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
        const res = await createMcpTestClient(app).post(mcpMessage(method, {}, { clientCapabilities: ALL_CAPS }));
        expect(res.status).toBe(200);
        expect(res.body.result.resultType).toBe('complete');
      }
      const completion = await createMcpTestClient(app).post(
        mcpMessage(
          'completion/complete',
          {
            ref: { type: 'ref/prompt', name: 'plain' },
            argument: { name: 'topic', value: 'x' },
          },
          { clientCapabilities: ALL_CAPS },
        ),
      );
      expect(completion.body.result).toBeUndefined();
      expect(completion.body.error.code).toBe(-32603);
    });
  });

  describe('at-most-once state', () => {
    it('consumes a single-use state once: the replay gets -32602 and the handler does not run again', async () => {
      const r1 = (await call(app, 'pay', { amount: 5 })).body.result;
      const retry = { inputResponses: { confirm: yes }, requestState: r1.requestState };
      const first = await call(app, 'pay', { amount: 5 }, retry);
      expect(first.status).toBe(200);
      expect(first.body.result.content).toEqual([{ type: 'text', text: 'Paid 5' }]);
      const replay = await call(app, 'pay', { amount: 5 }, retry);
      expect(replay.status).toBe(400);
      expect(replay.body.error).toEqual({
        code: -32602,
        message: 'requestState has already been used',
        data: { reason: 'request_state_replayed' },
      });
      expect(payments).toBe(1);
    });

    it('lets an ordinary tool accept the same state twice (replay is the tool author’s choice)', async () => {
      const r1 = (await call(app, 'delete_thrown', { path: '/tmp/y' })).body.result;
      const retry = { inputResponses: { confirm: yes }, requestState: r1.requestState };
      expect((await call(app, 'delete_thrown', { path: '/tmp/y' }, retry)).status).toBe(200);
      const again = await call(app, 'delete_thrown', { path: '/tmp/y' }, retry);
      expect(again.status).toBe(200);
      expect(again.body.result.content).toEqual([{ type: 'text', text: 'Deleted /tmp/y' }]);
    });
  });
});
