import type { McpEventBus } from '../../src/core/index.js';
import { mcpMessage } from '../../src/testing/index.js';
import { McpKernel, type McpLogger } from '../../src/core/index.js';

/** Records what the kernel writes to its logger. */
class RecordingLogger implements McpLogger {
  readonly errors: Array<{ message: string; error: unknown }> = [];
  error(message: string, error?: unknown): void {
    this.errors.push({ message, error });
  }
  warn(): void {}
}

class DownBus implements McpEventBus {
  publish(): Promise<void> {
    return Promise.reject(new Error('bus unreachable'));
  }
  subscribe(): () => void {
    return () => undefined;
  }
}

describe('McpKernel logger option: the one place the kernel writes what only the operator reads', () => {
  it('gets an event bus that fails to publish', async () => {
    const logger = new RecordingLogger();
    const kernel = new McpKernel({ name: 'k', version: '1', listen: { eventBus: new DownBus() }, logger });
    kernel.notifyResourceUpdated('x://y');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(logger.errors).toEqual([
      { message: 'MCP event bus: publish of resources/updated failed', error: new Error('bus unreachable') },
    ]);
  });

  it('gets an interceptor that throws, even when onHandlerError is set too', async () => {
    const logger = new RecordingLogger();
    const handlerErrors: unknown[] = [];
    const kernel = new McpKernel({
      name: 'k',
      version: '1',
      logger,
      observability: { onHandlerError: (error) => handlerErrors.push(error) },
    });
    kernel.registerTool('t', 'T', { type: 'object' }, () => 'ok');
    kernel.intercept(async () => {
      throw new Error('metrics backend down');
    });
    const response = await kernel.handleRequest(mcpMessage('tools/call', { name: 't', arguments: {} }));
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    expect(logger.errors).toEqual([
      {
        message: expect.stringMatching(/^tools\/call "t" failed \(reference [0-9a-f-]{36}\): metrics backend down$/),
        error: new Error('metrics backend down'),
      },
    ]);
    expect(handlerErrors).toEqual([]);
  });

  it('gets redacted handler errors when no onHandlerError is given, under the reference the client sees', async () => {
    const logger = new RecordingLogger();
    const kernel = new McpKernel({ name: 'k', version: '1', logger, observability: { redactErrors: true } });
    kernel.registerTool('boom', 'Throws', { type: 'object' }, () => {
      throw new Error('secret detail');
    });
    const response = await kernel.handleRequest(mcpMessage('tools/call', { name: 'boom', arguments: {} }));
    const text = (response as unknown as { result: { content: Array<{ text: string }> } }).result.content[0].text;
    const reference = /reference ([0-9a-f-]{36})/.exec(text)?.[1];
    expect(text).not.toContain('secret detail');
    expect(logger.errors).toEqual([
      {
        message: `tools/call "boom" failed (reference ${reference}): secret detail`,
        error: new Error('secret detail'),
      },
    ]);
  });
});
