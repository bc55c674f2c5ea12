import { classifyEra } from '../../src/protocol/classifier.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import { Era2025 } from '../../src/server/eras/era-2025.js';
import { McpKernel } from '../../src/server/kernel/mcp-kernel.js';
import { Cacheable, InterimResult, PUBLIC_LIST } from '../../src/server/method-result.js';
import type { McpContext } from '../../src/server/mcp-context.js';

const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

function kernel(): McpKernel {
  const k = new McpKernel({ name: 'k', version: '1', instructions: 'hi', legacy: { replyTimeoutMs: 2_000 } });
  k.registerTool('greet', 'Greets', { type: 'object' }, () => 'hello');
  k.addTool({
    name: 'ask',
    description: 'Asks a name, logs',
    inputSchema: { type: 'object' },
    handler: async (_args, _answers, ctx: McpContext) => {
      ctx.log('info', 'asking');
      const answer = await ctx.elicit('Name?', NAME_FORM, { key: 'who' });
      return `hi ${String(answer.content?.name)} at ${ctx.protocolVersion}`;
    },
  });
  return k;
}

describe('Era2025: the 2025 presentation of a family answer', () => {
  const era = new Era2025();

  it('has no version rung and removes only the 2026-only methods', () => {
    expect(era.refuse({ jsonrpc: '2.0', id: 1, method: 'initialize' })).toBeUndefined();
    expect(['server/discover', 'subscriptions/listen'].map((m) => era.removed(m))).toEqual([true, true]);
    expect(['tools/call', 'ping', 'initialize'].map((m) => era.removed(m))).toEqual([false, false, false]);
  });

  it('presents a cacheable answer without its hints, a core result as it is, and an interim one untouched for the leg', () => {
    expect(era.present(new Cacheable({ tools: [] }, PUBLIC_LIST))).toEqual({ tools: [] });
    expect(era.present({ content: [] })).toEqual({ content: [] });
    const interim = new InterimResult({}, 'state', true);
    expect(era.present(interim)).toBe(interim);
  });
});

describe('LegacyLeg without HTTP: what a stdio driver does', () => {
  it('serves initialize from what is registered, remembering nothing', async () => {
    const k = kernel();
    const response = await k.legacy!.handle(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05' } },
      {},
      '2025-03-26',
    );
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2024-11-05',
        capabilities: { tools: {}, logging: {} },
        serverInfo: { name: 'k', version: '1' },
        instructions: 'hi',
      },
    });
  });

  it('writes the server request to the stream it is given and routes the reply read back to the waiting call', async () => {
    const k = kernel();
    const written: Array<JsonRpcNotification | JsonRpcRequest> = [];
    // The "client" on the other end of the pipe: answers each request it reads by writing its response back.
    const notify = (message: JsonRpcNotification | JsonRpcRequest) => {
      written.push(message);
      if (!('id' in message)) return;
      const reply = { jsonrpc: '2.0', id: message.id, result: { action: 'accept', content: { name: 'Ada' } } };
      setImmediate(async () => {
        expect(classifyEra(reply, {})).toEqual({ era: 'reply', version: '2025-03-26' });
        expect(await k.legacy!.acceptReply(reply, undefined)).toBe('delivered');
      });
    };
    const request: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: 'c1',
      method: 'tools/call',
      params: { name: 'ask', arguments: {} },
    };
    const response = await k.legacy!.handle(request, { notify }, '2025-11-25');
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 'c1',
      result: { content: [{ type: 'text', text: 'hi Ada at 2025-11-25' }] },
    });
    expect(written.map((m) => m.method)).toEqual([
      'notifications/message',
      'elicitation/create',
      'notifications/message',
    ]);
    expect(written[1]).toMatchObject({
      id: expect.stringMatching(/^srv-/),
      params: { message: 'Name?', requestedSchema: NAME_FORM },
    });
    expect(k.legacy!.waiting).toBe(0);
  });

  it('without a stream to ask on, a tool that needs input ends with a tool error', async () => {
    const response = await kernel().legacy!.handle(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } },
      {},
      '2025-11-25',
    );
    expect(response).toMatchObject({
      id: 2,
      result: { isError: true, content: [{ text: expect.stringMatching(/cannot carry requests to the client/) }] },
    });
  });

  it('answers the 2026-only methods -32601 and keeps a result free of 2026 fields', async () => {
    const k = kernel();
    expect(
      await k.legacy!.handle({ jsonrpc: '2.0', id: 3, method: 'server/discover' }, {}, '2025-11-25'),
    ).toMatchObject({ error: { code: -32601 } });
    expect(await k.legacy!.handle({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, {}, '2025-11-25')).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: { tools: [expect.objectContaining({ name: 'greet' }), expect.objectContaining({ name: 'ask' })] },
    });
  });

  it('is absent with legacy: off', () => {
    expect(new McpKernel({ name: 'k', version: '1', legacy: { mode: 'off' } }).legacy).toBeUndefined();
  });
});
