import { InputRequired } from '../../src/index.js';
import type { JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import type { McpEra, PresentedResult } from '../../src/server/eras/era.js';
import { Cacheable, InterimResult, type MethodResult } from '../../src/server/method-result.js';
import { mcpMessage } from '../../src/testing/index.js';
import { McpKernel } from '../../src/core/index.js';

const ELICITING = { elicitation: {} };

/**
 * An era that adds nothing, as an earlier revision's adapter would: the core result as it is, and an interim
 * result turned into something the test can drive the next round from.
 */
class BareEra implements McpEra {
  readonly answers: MethodResult[] = [];
  refuse(): undefined {
    return undefined;
  }
  removed(method: string): boolean {
    return method === 'server/discover';
  }
  present(answer: MethodResult): PresentedResult {
    this.answers.push(answer);
    if (answer instanceof Cacheable) return { ...answer.result };
    if (answer instanceof InterimResult)
      return { resultType: 'input_required', inputRequests: answer.inputRequests, requestState: answer.requestState };
    return { ...answer };
  }
}

function request(method: string, params: Record<string, unknown> = {}, clientCapabilities = {}): JsonRpcRequest {
  return mcpMessage(method, params, { clientCapabilities }) as unknown as JsonRpcRequest;
}

describe("McpKernel.dispatch with another era: the same families, that era's results", () => {
  const kernel = new McpKernel({
    name: 'k',
    version: '1',
    requestState: { secret: 'kernel-era-test-secret-0123456789abcdef' },
  });
  kernel.registerTool(
    'add',
    'Adds',
    { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    (x: { a: number; b: number }) => x.a + x.b,
  );
  kernel.registerTool('confirm', 'Asks first', { type: 'object' }, (_args, inputResponses) => {
    const answer = inputResponses.ok as { action: string } | undefined;
    if (!answer)
      throw new InputRequired({
        ok: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object' } } },
      });
    return `answer: ${answer.action}`;
  });
  kernel.addResource({ uri: 'file:///a.txt', name: 'a', cache: { ttlMs: 5 }, handler: () => 'A' });

  it('answers tools/call and tools/list with the core result only: no resultType, cache hints or serverInfo', async () => {
    const era = new BareEra();
    const call = await kernel.dispatch(request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }), {}, era);
    expect(call).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '3' }] } });
    const list = await kernel.dispatch(request('tools/list'), {}, era);
    expect(list).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { tools: [expect.objectContaining({ name: 'add' }), expect.objectContaining({ name: 'confirm' })] },
    });
  });

  it('tells the era which cache hints a read takes, and leaves writing them to it', async () => {
    const era = new BareEra();
    const read = await kernel.dispatch(request('resources/read', { uri: 'file:///a.txt' }), {}, era);
    expect(read).toEqual({ jsonrpc: '2.0', id: 1, result: { contents: [{ uri: 'file:///a.txt', text: 'A' }] } });
    expect(era.answers).toEqual([
      new Cacheable(
        { contents: [{ uri: 'file:///a.txt', text: 'A' }] },
        { kind: 'read', retry: false, private: false, override: { ttlMs: 5 } },
      ),
    ]);
  });

  it('hands an input request to the era as an InterimResult whose state completes the next round', async () => {
    const era = new BareEra();
    const first = await kernel.dispatch(request('tools/call', { name: 'confirm', arguments: {} }, ELICITING), {}, era);
    const interim = era.answers[0] as InterimResult;
    expect(interim).toBeInstanceOf(InterimResult);
    expect(interim.toolCall).toBe(true);
    expect(first).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'input_required',
        inputRequests: { ok: expect.objectContaining({ method: 'elicitation/create' }) },
        requestState: interim.requestState,
      },
    });
    const retry = {
      name: 'confirm',
      arguments: {},
      inputResponses: { ok: { action: 'accept', content: {} } },
      requestState: interim.requestState,
    };
    const second = await kernel.dispatch(request('tools/call', retry, ELICITING), {}, era);
    expect(second).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'answer: accept' }] } });
  });

  it('refuses the methods the era does not have with -32601', async () => {
    const response = await kernel.dispatch(request('server/discover'), {}, new BareEra());
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: 'Method not found: server/discover' },
    });
  });

  it('still answers handleRequest in the 2026-07-28 shape', async () => {
    const response = await kernel.handleRequest(request('resources/read', { uri: 'file:///a.txt' }));
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        contents: [{ uri: 'file:///a.txt', text: 'A' }],
        ttlMs: 5,
        cacheScope: 'private',
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'k', version: '1' } },
      },
    });
  });
});
