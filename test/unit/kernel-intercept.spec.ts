import type { McpCall, McpCallInterceptor } from '../../src/core/index.js';
import { mcpMessage } from '../../src/testing/index.js';
import { McpKernel } from '../../src/core/index.js';

describe('McpKernel.intercept: the one hook around dispatched calls', () => {
  const kernel = new McpKernel({
    name: 'k',
    version: '1',
    requestState: { secret: 'kernel-intercept-test-secret-0123456789' },
  });
  kernel.registerTool(
    'add',
    'Adds',
    { type: 'object', properties: { a: { type: 'number' } } },
    (a: { a: number }) => a.a + 1,
  );
  kernel.addPrompt({
    name: 'p',
    arguments: [{ name: 'x' }],
    handler: () => 'hi',
    complete: {
      x: () => {
        throw new Error('completer crashed');
      },
    },
  });

  const order: string[] = [];
  const calls: McpCall[] = [];
  kernel.intercept(async (call, next) => {
    order.push('inner:before');
    const response = await next();
    order.push('inner:after');
    calls.push(call);
    return response;
  });
  kernel.intercept(async (_call, next) => {
    order.push('outer:before');
    const response = await next();
    order.push('outer:after');
    return response;
  });

  beforeEach(() => {
    order.length = 0;
    calls.length = 0;
  });

  it('runs interceptors added later outside those added earlier, once per call', async () => {
    const response = await kernel.handleRequest(
      mcpMessage('tools/call', { name: 'add', arguments: { a: 1 } }, { id: 5 }),
    );
    expect(response && 'result' in response && response.result.content).toEqual([{ type: 'text', text: '2' }]);
    expect(order).toEqual(['outer:before', 'inner:before', 'inner:after', 'outer:after']);
    expect(calls[0]).toMatchObject({ method: 'tools/call', name: 'add', requestId: 5, protocolVersion: '2026-07-28' });
  });

  it('describes a resource read by its URI and leaves unknown methods outside the hook', async () => {
    await kernel.handleRequest(mcpMessage('resources/read', { uri: 'x://y' }));
    expect(calls[0]).toMatchObject({ method: 'resources/read', uri: 'x://y', name: undefined });
    calls.length = 0;
    const unknown = await kernel.handleRequest(mcpMessage('nope/nothing'));
    expect(unknown && 'error' in unknown && unknown.error.code).toBe(-32601);
    expect(calls).toHaveLength(0);
  });

  it('hands the exception behind an internal error to the interceptors, not to the client', async () => {
    const response = await kernel.handleRequest(
      mcpMessage('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } }),
    );
    expect(response && 'error' in response && response.error).toEqual({ code: -32603, message: 'Internal error' });
    expect((calls[0].error as Error).message).toBe('completer crashed');
  });
});

describe('McpKernel.intercept: an interceptor that throws', () => {
  it.each([
    [
      'synchronously',
      () => {
        throw new Error('metrics backend down');
      },
    ],
    [
      'after the call',
      async (_call: unknown, next: () => Promise<unknown>) => {
        await next();
        throw new Error('metrics backend down');
      },
    ],
  ])(
    '%s: the client still gets a JSON-RPC error (handleRequest never rejects), onHandlerError the exception',
    async (_when, interceptor) => {
      const logged: unknown[] = [];
      const kernel = new McpKernel({
        name: 'k',
        version: '1',
        observability: { onHandlerError: (error) => logged.push(error) },
      });
      kernel.registerTool('add', 'Adds', { type: 'object' }, () => 1);
      kernel.intercept(interceptor as McpCallInterceptor);
      await expect(
        kernel.handleRequest(mcpMessage('tools/call', { name: 'add', arguments: {} }, { id: 9 })),
      ).resolves.toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32603, message: 'Internal error' },
      });
      expect(logged.map((e) => (e as Error).message)).toEqual(['metrics backend down']);
    },
  );
});
