import { jest } from '@jest/globals';
import { mcpMessage } from '../../src/testing/index.js';
import { McpKernel } from '../../src/core/index.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';

const DAY = 24 * 60 * 60 * 1000;
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A listen stream on a bare kernel whose caller's credential expires at `credentialExpiresAt`. */
function openListen(credentialExpiresAt: number) {
  const kernel = new McpKernel({ name: 'k', version: '1' });
  kernel.registerTool('a', 'A', { type: 'object' }, () => 'a');
  const client = new AbortController();
  const sent: JsonRpcNotification[] = [];
  const context = { notify: (n: JsonRpcNotification) => void sent.push(n), signal: client.signal, credentialExpiresAt };
  const stream = kernel.handleRequest(
    mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'L' }),
    context,
  );
  return { kernel, client, sent, stream };
}

describe('subscriptions/listen and the credential expiry', () => {
  // setImmediate stays real so the tests can let promises settle; Date and the timers are the kernel's clock.
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('clears its expiry timer when the client goes away first', async () => {
    const { kernel, client, stream } = openListen(Date.now() + 60_000);
    await settle();
    expect(jest.getTimerCount()).toBe(1);
    client.abort();
    await stream;
    expect(kernel.load.subscriptions).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('waits for an expiry past the longest timer delay instead of ending at once', async () => {
    const { kernel, stream } = openListen(Date.now() + 30 * DAY);
    await settle();
    await jest.advanceTimersByTimeAsync(29 * DAY);
    expect(kernel.load.subscriptions).toBe(1);
    await jest.advanceTimersByTimeAsync(DAY);
    await expect(stream).resolves.toMatchObject({ id: 'L', result: { resultType: 'complete' } });
    expect(kernel.load.subscriptions).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });
});
