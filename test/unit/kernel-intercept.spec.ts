import type { McpCall } from '../../src/core/index.js';
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

describe('McpKernel.intercept and observe: a hook that throws', () => {
  const fail = (): never => {
    throw new Error('metrics backend down');
  };
  it.each([
    ['an interceptor, synchronously', (kernel: McpKernel) => kernel.intercept(fail)],
    [
      'an interceptor, after the call',
      (kernel: McpKernel) =>
        kernel.intercept(async (_call, next) => {
          await next();
          return fail();
        }),
    ],
    ['an observer', (kernel: McpKernel) => kernel.observe(fail)],
  ])(
    '%s: the client still gets a JSON-RPC error (handleRequest never rejects), onHandlerError the exception',
    async (_when, install) => {
      const logged: unknown[] = [];
      const kernel = new McpKernel({
        name: 'k',
        version: '1',
        observability: { onHandlerError: (error) => logged.push(error) },
      });
      kernel.registerTool('add', 'Adds', { type: 'object' }, () => 1);
      install(kernel);
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

describe('McpKernel.observe: a synchronous look at every answer', () => {
  /** A kernel with a tool that answers and one that throws. */
  function addAndBoom(): McpKernel {
    const kernel = new McpKernel({ name: 'k', version: '1', observability: { onHandlerError: () => {} } });
    kernel.registerTool('add', 'Adds', { type: 'object' }, () => 1);
    kernel.registerTool('boom', 'Throws', { type: 'object' }, () => {
      throw new Error('handler crashed');
    });
    return kernel;
  }

  it('sees the response inside every interceptor, with the exception behind an internal error', async () => {
    const kernel = addAndBoom();
    const order: string[] = [];
    const seen: Array<{ call: McpCall; response: unknown }> = [];
    kernel.observe((call, response) => {
      order.push('observer');
      seen.push({ call, response });
      return response;
    });
    kernel.intercept((_call, next) => {
      order.push('interceptor');
      return next().finally(() => order.push('interceptor settled'));
    });
    const response = await kernel.handleRequest(mcpMessage('tools/call', { name: 'add', arguments: {} }, { id: 3 }));
    expect(order).toEqual(['interceptor', 'observer', 'interceptor settled']);
    expect(seen[0].response).toBe(response);
    expect(seen[0].call).toMatchObject({ method: 'tools/call', name: 'add', requestId: 3 });
    await kernel.handleRequest(mcpMessage('tools/call', { name: 'boom', arguments: {} }));
    expect((seen[1].call.error as Error).message).toBe('handler crashed');
  });

  it('has an observer without interceptors see successful calls, and failed ones with their exception', async () => {
    const kernel = addAndBoom();
    const seen: McpCall[] = [];
    kernel.observe((call, response) => {
      seen.push(call);
      return response;
    });
    await kernel.handleRequest(mcpMessage('tools/call', { name: 'add', arguments: {} }, { id: 4 }));
    await kernel.handleRequest(mcpMessage('tools/call', { name: 'boom', arguments: {} }, { id: 5 }));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ method: 'tools/call', name: 'add', requestId: 4 });
    expect(seen[1]).toMatchObject({ method: 'tools/call', name: 'boom', requestId: 5 });
    expect((seen[1].error as Error).message).toBe('handler crashed');
    expect(seen[1].correlationId).toEqual(expect.any(String));
  });
});
