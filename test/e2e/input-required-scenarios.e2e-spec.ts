import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpModule, type McpContext, type ToolHandler } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

// The 14 input-required-result-* conformance scenarios (conformance.md §3.4), replayed with the harness's
// envelope and mock answers against fixtures written with the context helpers.
const HARNESS_CAPS = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
const elicited = (content: Record<string, unknown>) => ({ action: 'accept', content });
const sampled = (text: string) => ({
  role: 'assistant',
  content: { type: 'text', text },
  model: 'test-model',
  stopReason: 'endTurn',
});
const roots = { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] };
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const OK = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

type Result = Record<string, any>;

describe('input-required-result-* scenarios', () => {
  let app: INestApplication;

  function send(method: string, params: Record<string, unknown>, caps: object = HARNESS_CAPS) {
    return createMcpTestClient(app).post(
      mcpMessage(method, params, { clientCapabilities: caps as Record<string, unknown> }),
    );
  }
  async function tool(name: string, extra: Record<string, unknown> = {}, caps?: object): Promise<Result> {
    return (await send('tools/call', { name, arguments: {}, ...extra }, caps)).body;
  }
  const firstKey = (result: Result) => Object.keys(result.inputRequests)[0];
  const isComplete = (result: Result) => result.resultType !== 'input_required' && result.content?.length > 0;

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({
        name: 'scenarios',
        version: '1.0.0',
        requestState: { secret: 'scenario-secret-0123456789abcdef-0123' },
      }),
    ]);
    const server = app.get(MCPServer);
    const name = (ctx: McpContext) => ctx.elicit('What is your name?', NAME, { key: 'user_name' });
    const register = (tool: string, handler: ToolHandler) =>
      server.registerTool(tool, `Fixture ${tool}`, { type: 'object' }, handler);

    register(
      'test_input_required_result_elicitation',
      async (_a, _r, ctx) => `Hello, ${(await name(ctx)).content!.name}!`,
    );
    register('test_input_required_result_sampling', async (_a, _r, ctx) => {
      const answer = await ctx.sample('What is the capital of France?', { key: 'capital_question', maxTokens: 100 });
      return (answer.content as { text: string }).text;
    });
    register('test_input_required_result_list_roots', async (_a, _r, ctx) =>
      (await ctx.listRoots({ key: 'client_roots' })).map((r) => r.uri).join(','),
    );
    for (const fixture of ['test_input_required_result_request_state', 'test_input_required_result_tampered_state']) {
      register(fixture, async (_a, _r, ctx) => {
        const first = ctx.state === undefined;
        ctx.state ??= { issuedFor: fixture };
        await ctx.elicit('Please confirm', OK, { key: 'confirm' });
        return first ? 'no state' : 'state-ok';
      });
    }
    register('test_input_required_result_multiple_inputs', async (_a, _r, ctx) => {
      const [user, greeting, where] = await Promise.all([
        name(ctx),
        ctx.sample('Generate a greeting', { key: 'greeting', maxTokens: 50 }),
        ctx.listRoots({ key: 'client_roots' }),
      ]);
      return `${(greeting.content as { text: string }).text} ${user.content!.name} @ ${where[0].uri}`;
    });
    register('test_input_required_result_multi_round', async (_a, _r, ctx) => {
      const step1 = await ctx.elicit('Step 1: What is your name?', NAME, { key: 'step1' });
      const step2 = await ctx.elicit(
        'Step 2: What is your favorite color?',
        { type: 'object', properties: { color: { type: 'string' } } },
        { key: 'step2' },
      );
      return `${step1.content!.name} likes ${step2.content!.color}`;
    });
    register('test_input_required_result_capabilities', async (_a, _r, ctx) => {
      const [user, answer] = await Promise.all([name(ctx), ctx.sample('Say hi', { key: 'hello', maxTokens: 10 })]);
      return `${user.content!.name}: ${(answer.content as { text: string }).text}`;
    });
    server.addPrompt({
      name: 'test_input_required_result_prompt',
      description: 'A prompt that needs context from the user',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit(
          'What context should the prompt use?',
          { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
          { key: 'user_context' },
        );
        return `Context: ${answer.content!.context}`;
      },
    });
  });
  afterAll(() => app.close());

  it('basic-elicitation', async () => {
    const r1 = (await tool('test_input_required_result_elicitation')).result;
    expect(r1.resultType).toBe('input_required');
    expect(r1.inputRequests.user_name.method).toBe('elicitation/create');
    const r2 = (
      await tool('test_input_required_result_elicitation', {
        inputResponses: { user_name: elicited({ name: 'Alice' }) },
        requestState: r1.requestState,
      })
    ).result;
    expect(r2.content).toEqual([{ type: 'text', text: 'Hello, Alice!' }]);
  });

  it('basic-sampling', async () => {
    const r1 = (await tool('test_input_required_result_sampling')).result;
    expect(r1.inputRequests[firstKey(r1)].method).toBe('sampling/createMessage');
    const r2 = (
      await tool('test_input_required_result_sampling', {
        inputResponses: { [firstKey(r1)]: sampled('The capital of France is Paris.') },
        requestState: r1.requestState,
      })
    ).result;
    expect(isComplete(r2)).toBe(true);
  });

  it('basic-list-roots', async () => {
    const r1 = (await tool('test_input_required_result_list_roots')).result;
    expect(r1.inputRequests[firstKey(r1)]).toEqual({ method: 'roots/list', params: {} });
    const r2 = (
      await tool('test_input_required_result_list_roots', {
        inputResponses: { [firstKey(r1)]: roots },
        requestState: r1.requestState,
      })
    ).result;
    expect(r2.content).toEqual([{ type: 'text', text: 'file:///test/root' }]);
  });

  it('request-state', async () => {
    const r1 = (await tool('test_input_required_result_request_state')).result;
    expect(typeof r1.requestState).toBe('string');
    const r2 = (
      await tool('test_input_required_result_request_state', {
        inputResponses: { [firstKey(r1)]: elicited({ ok: true }) },
        requestState: r1.requestState,
      })
    ).result;
    expect(r2.content).toEqual([{ type: 'text', text: 'state-ok' }]);
  });

  it('multiple-input-requests', async () => {
    const r1 = (await tool('test_input_required_result_multiple_inputs')).result;
    const methods = Object.values(r1.inputRequests as Record<string, { method: string }>)
      .map((r) => r.method)
      .sort();
    expect(methods).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    expect(typeof r1.requestState).toBe('string');
    const inputResponses = { user_name: elicited({ name: 'Alice' }), greeting: sampled('Hi'), client_roots: roots };
    const r2 = (
      await tool('test_input_required_result_multiple_inputs', { inputResponses, requestState: r1.requestState })
    ).result;
    expect(r2.content).toEqual([{ type: 'text', text: 'Hi Alice @ file:///test/root' }]);
  });

  it('multi-round', async () => {
    const r1 = (await tool('test_input_required_result_multi_round')).result;
    expect(r1).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    const r2 = (
      await tool('test_input_required_result_multi_round', {
        inputResponses: { [firstKey(r1)]: elicited({ name: 'Alice' }) },
        requestState: r1.requestState,
      })
    ).result;
    expect(r2.resultType).toBe('input_required');
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = (
      await tool('test_input_required_result_multi_round', {
        inputResponses: { [firstKey(r2)]: elicited({ color: 'blue' }) },
        requestState: r2.requestState,
      })
    ).result;
    expect(r3.content).toEqual([{ type: 'text', text: 'Alice likes blue' }]);
  });

  it('missing-input-response', async () => {
    const r = (
      await tool('test_input_required_result_elicitation', {
        inputResponses: { wrong_key: elicited({ data: 'wrong' }) },
      })
    ).result;
    expect(r.resultType).toBe('input_required');
    expect(r.inputRequests.user_name.method).toBe('elicitation/create');
  });

  it('non-tool-request', async () => {
    const r1 = (await send('prompts/get', { name: 'test_input_required_result_prompt' })).body.result;
    expect(r1.resultType).toBe('input_required');
    const r2 = (
      await send('prompts/get', {
        name: 'test_input_required_result_prompt',
        inputResponses: { [firstKey(r1)]: elicited({ context: 'test context' }) },
        requestState: r1.requestState,
      })
    ).body.result;
    expect(r2.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Context: test context' } }]);
  });

  it('result-type', async () => {
    expect((await tool('test_input_required_result_elicitation')).result.resultType).toBe('input_required');
  });

  it('unsupported-methods', async () => {
    for (const method of ['tools/list', 'prompts/list']) {
      expect((await send(method, {})).body.result.resultType).not.toBe('input_required');
    }
  });

  it('tampered-state', async () => {
    const r1 = (await tool('test_input_required_result_tampered_state')).result;
    expect(typeof r1.requestState).toBe('string');
    const r2 = await tool('test_input_required_result_tampered_state', {
      inputResponses: { [firstKey(r1)]: elicited({ ok: true }) },
      requestState: `${r1.requestState}-TAMPERED`,
    });
    expect(r2.result).toBeUndefined();
    expect(r2.error.code).toBe(-32602);
  });

  it('capability-check', async () => {
    const r = (await tool('test_input_required_result_capabilities', {}, { sampling: {} })).result;
    expect(r.resultType).toBe('input_required');
    const methods = Object.values(r.inputRequests as Record<string, { method: string }>).map((x) => x.method);
    expect(methods).toEqual(['sampling/createMessage']);
  });

  it('ignore-extra-params', async () => {
    const inputResponses = {
      user_name: elicited({ name: 'Alice' }),
      unknown_extra_key: elicited({ x: 'y' }),
      another_unexpected: { foo: 'bar' },
    };
    const r = (await tool('test_input_required_result_elicitation', { inputResponses })).result;
    expect(r.content).toEqual([{ type: 'text', text: 'Hello, Alice!' }]);
  });

  it('validate-input', async () => {
    const invalid = await tool('test_input_required_result_elicitation', { inputResponses: { user_name: 12345 } });
    expect(invalid.result.resultType).toBe('input_required');
    const none = await tool('test_input_required_result_elicitation', { inputResponses: null });
    expect(none.result).toBeUndefined();
    expect(none.error.code).toBe(-32602);
  });
});
