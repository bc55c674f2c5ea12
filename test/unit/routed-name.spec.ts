import { checkRoutingHeaders } from '../../src/protocol/classifier.js';
import type { JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import { primitiveName, routedName } from '../../src/protocol/routed-name.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';

const request = (method: string, params: Record<string, unknown>) =>
  mcpMessage(method, params) as unknown as JsonRpcRequest;

describe('Which param names what a request addresses (one rule for headers, logs and errors)', () => {
  it.each([
    ['tools/call', { name: 'weather' }, 'weather', 'weather'],
    ['prompts/get', { name: 'greet' }, 'greet', 'greet'],
    ['resources/read', { uri: 'file:///a.txt' }, 'file:///a.txt', 'file:///a.txt'],
    ['tasks/get', { taskId: 't-1' }, undefined, 't-1'],
    ['tools/list', { name: 'ignored' }, undefined, undefined],
    ['tools/call', { name: 42 }, undefined, undefined],
  ])('%s %j: primitive %s, Mcp-Name %s', (method, params, primitive, routed) => {
    expect(primitiveName(request(method, params))).toBe(primitive);
    expect(routedName(request(method, params))).toBe(routed);
    expect(mcpHeaders(request(method, params))['mcp-name']).toBe(routed);
  });

  it('names the body field an Mcp-Name mismatch is about, taskId included', () => {
    const task = request('tasks/get', { taskId: 't-1' });
    const refusal = checkRoutingHeaders(task, { ...mcpHeaders(task), 'mcp-name': 't-2' });
    expect(refusal?.error.message).toContain('params.taskId');
    const read = request('resources/read', { uri: 'file:///a.txt' });
    expect(checkRoutingHeaders(read, { ...mcpHeaders(read), 'mcp-name': 'x' })?.error.message).toContain('params.uri');
  });
});
