import { preserialize, serializeResponse } from '../../src/server/response-serializer.js';
import { McpKernel, type JsonRpcResponse } from '../../src/core/index.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('serializeResponse', () => {
  const text = (value: string | Buffer[]) =>
    typeof value === 'string' ? value : Buffer.concat(value).toString('utf8');
  it('splices a pre-serialized member and parses to the same value as JSON.stringify', () => {
    const tools = preserialize([{ name: 'a', description: 'quote " and é ✓ \\u2028' }]);
    const response: JsonRpcResponse = {
      jsonrpc: '2.0',
      id: 'x"1',
      result: { tools, nextCursor: 'c', resultType: 'complete', _meta: { k: 1 } },
    };
    expect(JSON.parse(text(serializeResponse(response)))).toEqual(JSON.parse(JSON.stringify(response)));
  });

  it('handles a result whose only member is pre-serialized', () => {
    const items = preserialize([1, 2]);
    const response: JsonRpcResponse = { jsonrpc: '2.0', id: 3, result: { items } };
    expect(text(serializeResponse(response))).toBe('{"jsonrpc":"2.0","id":3,"result":{"items":[1,2]}}');
  });

  it('leaves errors and ordinary results to JSON.stringify', () => {
    const error: JsonRpcResponse = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    const result: JsonRpcResponse = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x' }] } };
    expect(serializeResponse(error)).toBe(JSON.stringify(error));
    expect(serializeResponse(result)).toBe(JSON.stringify(result));
  });

  it('freezes what it serializes, so the text cannot go stale', () => {
    const items = preserialize([{ name: 'a' }]);
    expect(Object.isFrozen(items)).toBe(true);
    expect(() => (items as unknown as unknown[]).push({ name: 'b' })).toThrow(TypeError);
  });
});

describe('pre-serialized list pages', () => {
  const list = async (kernel: McpKernel, cursor?: string) => {
    const params: Record<string, unknown> = { _meta: META };
    if (cursor !== undefined) params.cursor = cursor;
    const response = await kernel.handleRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list', params });
    const body = serializeResponse(response!);
    return JSON.parse(typeof body === 'string' ? body : Buffer.concat(body).toString('utf8'));
  };
  const names = (page: { result: { tools: Array<{ name: string }> } }) => page.result.tools.map((t) => t.name);

  it('serves the registry as it is after every change, page by page', async () => {
    const kernel = new McpKernel({ name: 'k', version: '1', limits: { pageSize: 2 } });
    for (const name of ['a', 'b', 'c']) kernel.registerTool(name, `tool ${name}`, { type: 'object' }, () => name);
    const first = await list(kernel);
    expect(names(first)).toEqual(['a', 'b']);
    const second = await list(kernel, first.result.nextCursor);
    expect(names(second)).toEqual(['c']);
    expect(second.result.nextCursor).toBeUndefined();

    kernel.removeTool('a');
    kernel.registerTool('d', 'tool d', { type: 'object' }, () => 'd');
    const changed = await list(kernel);
    expect(names(changed)).toEqual(['b', 'c']);
    expect(names(await list(kernel, changed.result.nextCursor))).toEqual(['d']);
    expect(changed.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'public' });
    expect(changed.result._meta['io.modelcontextprotocol/serverInfo']).toEqual({ name: 'k', version: '1' });
  });

  it('still returns plain objects from handleRequest', async () => {
    const kernel = new McpKernel({ name: 'k', version: '1' });
    kernel.registerTool('a', 'tool a', { type: 'object' }, () => 'a');
    const response = await kernel.handleRequest({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: META },
    });
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: expect.objectContaining({
        tools: [{ name: 'a', description: 'tool a', inputSchema: { type: 'object' } }],
      }),
    });
  });
});

describe('every list answered from its pre-serialized page', () => {
  const kernel = new McpKernel({ name: 'k', version: '1' });
  kernel.registerTool('a', 'tool a', { type: 'object' }, () => 'a');
  kernel.addPrompt({ name: 'p', description: 'prompt p', handler: () => 'p' });
  kernel.addResource({ uri: 'file:///r.txt', name: 'r', handler: () => 'r' });
  kernel.addResourceTemplate({ uriTemplate: 'file:///t/{id}', name: 't', handler: () => 't' });
  kernel.addSkill({ name: 'triage', description: 'Triage bugs.', body: 'Steps', files: { 'notes.md': 'n' } });
  kernel.addEvent({ name: 'order.shipped', description: 'An order left' });

  // A result whose list member was serialized once per registry version comes back as chunks around its bytes;
  // a list copied or rebuilt per request comes back as one freshly stringified string.
  it.each([
    ['tools/list', {}, 'tools'],
    ['prompts/list', {}, 'prompts'],
    ['resources/list', {}, 'resources'],
    ['resources/templates/list', {}, 'resourceTemplates'],
    ['skills/list', {}, 'skills'],
    ['resources/directory/read', { uri: 'skill://triage' }, 'resources'],
    ['events/list', {}, 'events'],
  ])('%s', async (method, params, key) => {
    const response = await kernel.handleRequest({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } });
    const body = serializeResponse(response!);
    expect(Array.isArray(body)).toBe(true);
    const parsed = JSON.parse(Buffer.concat(body as Buffer[]).toString('utf8'));
    expect(parsed.result[key].length).toBeGreaterThan(0);
    expect(parsed).toEqual(JSON.parse(JSON.stringify(response)));
  });
});

describe('which results are searched for a pre-serialized page', () => {
  it('a list of the 2025 era too', async () => {
    const kernel = new McpKernel({ name: 'k', version: '1', legacy: { mode: 'stateless' } });
    kernel.registerTool('a', 'tool a', { type: 'object' }, () => 'a');
    const response = await kernel.legacy!.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, '2025-11-25');
    const body = serializeResponse(response!);
    expect(Array.isArray(body)).toBe(true);
    expect(JSON.parse(Buffer.concat(body as Buffer[]).toString('utf8'))).toEqual(JSON.parse(JSON.stringify(response)));
  });

  it('neither a call result nor a result no list made, even one holding a page', async () => {
    const kernel = new McpKernel({ name: 'k', version: '1' });
    kernel.registerTool('a', 'tool a', { type: 'object' }, () => 'a');
    const params = { name: 'a', arguments: {}, _meta: META };
    const call = await kernel.handleRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
    expect(serializeResponse(call!)).toBe(JSON.stringify(call));
    const unmarked: JsonRpcResponse = { jsonrpc: '2.0', id: 2, result: { items: preserialize([1]) } };
    expect(serializeResponse(unmarked)).toBe('{"jsonrpc":"2.0","id":2,"result":{"items":[1]}}');
  });
});
