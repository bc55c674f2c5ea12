import { mcpMessage } from '../../src/testing/index.js';
import { McpKernel } from '../../src/core/index.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('subscriptions/listen over a transport that offers only onAbort (no signal)', () => {
  it('ends the stream and frees its slot when the transport gives up', async () => {
    const kernel = new McpKernel({ name: 'k', version: '1' });
    kernel.registerTool('a', 'A', { type: 'object' }, () => 'a');
    const sent: JsonRpcNotification[] = [];
    const listeners = new Set<(reason: unknown) => void>();
    const context = {
      notify: (n: JsonRpcNotification) => void sent.push(n),
      onAbort(listener: (reason: unknown) => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    let answered = false;
    const stream = kernel
      .handleRequest(
        mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'L' }),
        context,
      )
      .then((r) => {
        answered = true;
        return r;
      });
    await settle();
    expect(sent[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    expect(kernel.load.subscriptions).toBe(1);

    for (const listener of [...listeners]) listener(undefined);
    await settle();
    expect(answered).toBe(true);
    expect(kernel.load.subscriptions).toBe(0);
    expect(listeners.size).toBe(0);
    await expect(stream).resolves.toMatchObject({
      id: 'L',
      result: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' } },
    });
  });
});
