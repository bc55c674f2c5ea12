import { jest } from '@jest/globals';
import type { McpBusEvent, McpEventBus } from '../../src/core/index.js';
import { McpKernel } from '../../src/core/index.js';

/** A remote bus (Redis, say) that is down: every publish rejects. */
class DownBus implements McpEventBus {
  readonly published: McpBusEvent[] = [];
  publish(event: McpBusEvent): Promise<void> {
    this.published.push(event);
    return Promise.reject(new Error('bus unreachable'));
  }
  subscribe(): () => void {
    return () => undefined;
  }
}

describe('McpKernel with an event bus whose publish rejects', () => {
  // Left unhandled, the rejection ends a Node process (jest swallows it, so the test looks for the handler's report).
  it('registers and notifies, and handles the rejection by reporting it', async () => {
    const report = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const bus = new DownBus();
      const kernel = new McpKernel({ name: 'k', version: '1', listen: { eventBus: bus } });
      kernel.registerTool('a', 'A', { type: 'object' }, () => 'a');
      kernel.notifyResourceUpdated('x://y');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(bus.published).toEqual([{ type: 'tools/list_changed' }, { type: 'resources/updated', uri: 'x://y' }]);
      expect(report.mock.calls.map((call) => (call.at(-1) as Error).message)).toEqual([
        'bus unreachable',
        'bus unreachable',
      ]);
    } finally {
      report.mockRestore();
    }
  });
});
