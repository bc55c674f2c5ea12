import { PassThrough } from 'node:stream';
import { type McpContext } from '../../src/index.js';
import { mcpMessage } from '../../src/testing/index.js';
import { McpKernel, McpStdioDriver } from '../../src/core/index.js';

type Message = Record<string, any>;

/** A driver on in-memory pipes: write lines in, read parsed lines out. */
function connect(kernel: McpKernel, options: ConstructorParameters<typeof McpStdioDriver>[1] = {}) {
  const input = new PassThrough();
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  const driver = new McpStdioDriver(kernel, options);
  const served = driver.serve(input, {
    write(data, callback) {
      const text = data.toString();
      expect(text.endsWith('\n')).toBe(true);
      lines.push(...text.slice(0, -1).split('\n'));
      setImmediate(() => callback?.());
      waiters.splice(0).forEach((wake) => wake());
      return true;
    },
  });
  const messages = () => lines.map((line) => JSON.parse(line) as Message);
  const until = async (match: (message: Message) => boolean): Promise<Message> => {
    for (;;) {
      const found = messages().find(match);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    driver,
    served,
    lines,
    messages,
    send: (message: unknown) => input.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`),
    raw: (text: string) => input.write(text),
    end: () => input.end(),
    response: (id: unknown) => until((m) => m.id === id && ('result' in m || 'error' in m)),
    until,
  };
}

const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

function fixtureKernel() {
  const kernel = new McpKernel({ name: 'stdio-unit', version: '1.0.0' });
  const aborted: string[] = [];
  kernel.registerTool(
    'echo',
    'Echoes',
    { type: 'object', properties: { text: { type: 'string' } } },
    (args: { text: string }) => args.text,
  );
  kernel.registerTool(
    'wait',
    'Runs until aborted',
    { type: 'object' },
    (_args, _answers, ctx: McpContext) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          aborted.push(String(ctx.requestId));
          resolve('stopped');
        });
      }),
  );
  kernel.registerTool('count', 'Reports progress', { type: 'object' }, async (_args, _answers, ctx: McpContext) => {
    for (let i = 1; i <= 3; i++) ctx.reportProgress({ progress: i, total: 3 });
    return 'done';
  });
  kernel.registerTool('ask', 'Asks a name', { type: 'object' }, async (_args, _answers, ctx: McpContext) => {
    const answer = await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } } });
    return `Hello ${(answer.content as { name: string }).name}`;
  });
  return { kernel, aborted };
}

describe('McpStdioDriver', () => {
  it('answers requests through the kernel, one JSON line each, matched by id', async () => {
    const { kernel } = fixtureKernel();
    const pipe = connect(kernel);
    pipe.send(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } }, { id: 1 }));
    pipe.send(mcpMessage('tools/list', {}, { id: 'two' }));
    expect(await pipe.response(1)).toMatchObject({
      result: { content: [{ type: 'text', text: 'hi' }], resultType: 'complete' },
    });
    expect((await pipe.response('two')).result.tools.map((t: Message) => t.name)).toEqual([
      'echo',
      'wait',
      'count',
      'ask',
    ]);
    pipe.end();
    await pipe.served;
  });

  it('applies the _meta rules of 2026-07-28 on a modern connection (-32602 without the envelope, -32022 for another version), with no header rung', async () => {
    const pipe = connect(fixtureKernel().kernel);
    pipe.send(mcpMessage('server/discover', {}, { id: 0 }));
    await pipe.response(0);
    pipe.send(mcpMessage('tools/list', {}, { id: 'pin' }));
    await pipe.response('pin');
    pipe.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    pipe.send(
      mcpMessage('tools/list', {}, { id: 2, meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } }),
    );
    pipe.send(mcpMessage('tools/list', {}, { id: 3 }));
    expect(await pipe.response(1)).toMatchObject({ error: { code: -32602 } });
    expect(await pipe.response(2)).toMatchObject({
      error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } },
    });
    expect(await pipe.response(3)).toHaveProperty('result.tools');
    pipe.end();
    await pipe.served;
  });

  it('writes progress notifications as lines before the response', async () => {
    const pipe = connect(fixtureKernel().kernel);
    pipe.send(mcpMessage('tools/call', { name: 'count', arguments: {} }, { id: 5, meta: { progressToken: 'p' } }));
    await pipe.response(5);
    const progress = pipe.messages().filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params.progress)).toEqual([1, 2, 3]);
    expect(progress.every((m) => m.params.progressToken === 'p')).toBe(true);
    expect(pipe.messages().at(-1)).toMatchObject({ id: 5 });
    pipe.end();
    await pipe.served;
  });

  it('cancels a call on notifications/cancelled: its signal fires and nothing more is written for it', async () => {
    const { kernel, aborted } = fixtureKernel();
    const pipe = connect(kernel);
    pipe.send(mcpMessage('tools/call', { name: 'wait', arguments: {} }, { id: 'w' }));
    await settle();
    pipe.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w', reason: 'user' } });
    pipe.send(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'after' } }, { id: 'e' }));
    await pipe.response('e');
    await settle();
    expect(aborted).toEqual(['w']);
    expect(pipe.messages().some((m) => m.id === 'w')).toBe(false);
    expect(kernel.load.calls).toBe(0);
    // The id is free again once the call is gone.
    pipe.send(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'again' } }, { id: 'w' }));
    expect(await pipe.response('w')).toMatchObject({ result: { content: [{ text: 'again' }] } });
    pipe.end();
    await pipe.served;
  });

  it('refuses a second request under an id still in flight, and ignores a cancel for an unknown id', async () => {
    const { kernel, aborted } = fixtureKernel();
    const pipe = connect(kernel);
    pipe.send(mcpMessage('tools/call', { name: 'wait', arguments: {} }, { id: 7 }));
    await settle();
    pipe.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8 } });
    pipe.send(mcpMessage('tools/list', {}, { id: 7 }));
    expect(await pipe.response(7)).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('already in use') },
    });
    expect(aborted).toEqual([]);
    pipe.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    pipe.end();
    await pipe.served;
    expect(aborted).toEqual(['7']);
  });

  it('runs subscriptions/listen on the one channel: acknowledged, events tagged with the subscription id, ended by a cancel', async () => {
    const { kernel } = fixtureKernel();
    const pipe = connect(kernel);
    pipe.send(mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'sub' }));
    await pipe.until((m) => m.method === 'notifications/subscriptions/acknowledged');
    kernel.registerTool('late', 'Added later', { type: 'object' }, () => 'late');
    const changed = await pipe.until((m) => m.method === 'notifications/tools/list_changed');
    expect(changed.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('sub');
    // Other requests are served while the stream is open.
    pipe.send(mcpMessage('tools/call', { name: 'late', arguments: {} }, { id: 'x' }));
    expect(await pipe.response('x')).toHaveProperty('result');
    pipe.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub' } });
    await settle();
    expect(kernel.load.subscriptions).toBe(0);
    expect(pipe.messages().some((m) => m.id === 'sub')).toBe(false);
    pipe.end();
    await pipe.served;
  });

  it('runs events/stream on the one channel: confirmed, occurrences tagged with its id, ended by a cancel', async () => {
    const { kernel } = fixtureKernel();
    kernel.addEvent({ name: 'build.finished', description: 'A build ended' });
    const pipe = connect(kernel);
    pipe.send(mcpMessage('events/stream', { name: 'build.finished', cursor: null }, { id: 'ev' }));
    const active = await pipe.until((m) => m.method === 'notifications/events/active');
    expect(active.params).toMatchObject({
      truncated: false,
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'ev' },
    });
    await kernel.publishEvent('build.finished', { ok: true });
    const event = await pipe.until((m) => m.method === 'notifications/events/event');
    expect(event.params).toMatchObject({ name: 'build.finished', data: { ok: true }, cursor: expect.any(String) });
    expect(event.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('ev');
    pipe.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'ev' } });
    await settle();
    await kernel.publishEvent('build.finished', { ok: false });
    await settle();
    expect(pipe.messages().filter((m) => m.method === 'notifications/events/event')).toHaveLength(1);
    expect(pipe.messages().some((m) => m.id === 'ev')).toBe(false);
    pipe.end();
    await pipe.served;
  });

  it('holds events/stream to listen.maxStreams, counted apart from listen streams', async () => {
    const kernel = new McpKernel({ name: 'stdio-unit', version: '1.0.0', listen: { maxStreams: 1 } });
    kernel.addEvent({ name: 'build.finished', description: 'A build ended' });
    kernel.registerTool('t', 'A tool', { type: 'object' }, () => 'x');
    const pipe = connect(kernel);
    pipe.send(mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'sub' }));
    pipe.send(mcpMessage('events/stream', { name: 'build.finished' }, { id: 'one' }));
    await pipe.until((m) => m.method === 'notifications/events/active');
    pipe.send(mcpMessage('events/stream', { name: 'build.finished' }, { id: 'two' }));
    expect(await pipe.response('two')).toMatchObject({
      error: { code: -32603, message: 'Subscription limit reached' },
    });
    pipe.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'one' } });
    await settle();
    pipe.send(mcpMessage('events/stream', { name: 'build.finished' }, { id: 'three' }));
    await pipe.until((m) => m.method === 'notifications/events/active' && m.params._meta[SUBSCRIPTION] === 'three');
    pipe.end();
    await pipe.served;
  });

  it('ends an open events/stream with its closing result when the input ends', async () => {
    const { kernel } = fixtureKernel();
    kernel.addEvent({ name: 'build.finished', description: 'A build ended' });
    const pipe = connect(kernel);
    pipe.send(mcpMessage('events/stream', { name: 'build.finished' }, { id: 'ev' }));
    await pipe.until((m) => m.method === 'notifications/events/active');
    const ending = Date.now();
    pipe.end();
    await pipe.served;
    // At once, as a listen stream: not after the drain deadline that bounds calls still running.
    expect(Date.now() - ending).toBeLessThan(1_000);
    expect(pipe.messages().at(-1)).toMatchObject({
      id: 'ev',
      result: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'ev' } },
    });
  });

  it('ends an open listen stream with its closing result when the input ends', async () => {
    const { kernel } = fixtureKernel();
    const pipe = connect(kernel);
    pipe.send(mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'sub' }));
    await pipe.until((m) => m.method === 'notifications/subscriptions/acknowledged');
    pipe.end();
    await pipe.served;
    expect(pipe.messages().at(-1)).toMatchObject({
      id: 'sub',
      result: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' } },
    });
  });

  it('runs an input_required round with signed requestState, as over HTTP', async () => {
    const pipe = connect(fixtureKernel().kernel);
    const caps = { elicitation: { form: {} } };
    pipe.send(mcpMessage('tools/call', { name: 'ask', arguments: {} }, { id: 1, clientCapabilities: caps }));
    const first = (await pipe.response(1)).result;
    expect(first.resultType).toBe('input_required');
    const [key] = Object.keys(first.inputRequests);
    const answer = { [key]: { action: 'accept', content: { name: 'Ada' } } };
    pipe.send(
      mcpMessage(
        'tools/call',
        { name: 'ask', arguments: {}, inputResponses: answer, requestState: first.requestState },
        { id: 2, clientCapabilities: caps },
      ),
    );
    expect(await pipe.response(2)).toMatchObject({
      result: { resultType: 'complete', content: [{ text: 'Hello Ada' }] },
    });
    pipe.send(
      mcpMessage(
        'tools/call',
        { name: 'ask', arguments: {}, inputResponses: answer, requestState: `${first.requestState}x` },
        { id: 3, clientCapabilities: caps },
      ),
    );
    expect(await pipe.response(3)).toMatchObject({
      error: { code: -32602, data: { reason: 'invalid_request_state' } },
    });
    pipe.end();
    await pipe.served;
  });

  it('answers bad input precisely and keeps serving: not JSON, a batch, a response, a bad id, a line over the limit', async () => {
    const pipe = connect(fixtureKernel().kernel, { maxMessageBytes: 1024 });
    pipe.raw('{"jsonrpc":"2.0", nope\n');
    pipe.send([mcpMessage('tools/list')]);
    pipe.send({ jsonrpc: '2.0', id: 42, result: {} });
    pipe.send({ jsonrpc: '2.0', id: null, method: 'tools/list' });
    pipe.raw(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"x":"${'a'.repeat(5000)}"}}\n`);
    pipe.raw('\n\r\n');
    pipe.send(mcpMessage('tools/list', {}, { id: 'alive' }));
    await pipe.response('alive');
    const errors = pipe.messages().filter((m) => 'error' in m);
    expect(errors.map((m) => [m.id, m.error.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(errors[1].error.message).toContain('batches are not supported');
    expect(errors[2].error.message).toContain('does not accept JSON-RPC responses');
    expect(errors[4].error.message).toContain('exceeds the limit of 1024 bytes');
    pipe.end();
    await pipe.served;
  });

  it('turns a result over the response limit into -32603 and drops an oversize notification', async () => {
    const kernel = new McpKernel({ name: 'k', version: '1' });
    kernel.registerTool('big', 'Big', { type: 'object' }, (_a, _r, ctx: McpContext) => {
      ctx.reportProgress({ progress: 1, message: 'x'.repeat(4096) });
      return 'y'.repeat(4096);
    });
    const pipe = connect(kernel, { maxResponseBytes: 1024 });
    pipe.send(mcpMessage('tools/call', { name: 'big', arguments: {} }, { id: 1, meta: { progressToken: 1 } }));
    expect(await pipe.response(1)).toMatchObject({
      error: { code: -32603, message: expect.stringContaining('response limit of 1024 bytes') },
    });
    expect(pipe.messages()).toHaveLength(1);
    pipe.end();
    await pipe.served;
  });

  it('on close, stops reading, lets calls finish within the drain, then aborts them with -32603', async () => {
    const { kernel, aborted } = fixtureKernel();
    const pipe = connect(kernel, { drainTimeoutMs: 50 });
    pipe.send(mcpMessage('tools/call', { name: 'wait', arguments: {} }, { id: 'slow' }));
    await settle();
    const closing = pipe.driver.close();
    pipe.send(mcpMessage('tools/list', {}, { id: 'late' }));
    await closing;
    await pipe.served;
    expect(aborted).toEqual(['slow']);
    expect(pipe.messages()).toEqual([
      expect.objectContaining({
        id: 'slow',
        error: expect.objectContaining({ code: -32603, message: 'Server is shutting down' }),
      }),
    ]);
  });

  it('grants the scopes it was given to every call (stdio has no OAuth: the launcher decides), and none without', async () => {
    const kernel = new McpKernel({ name: 'scoped', version: '1' });
    kernel.addTool({
      name: 'admin',
      description: 'Needs a scope',
      inputSchema: { type: 'object' },
      requiredScopes: ['admin'],
      handler: () => 'done',
    });
    const granted = connect(kernel, { scopes: ['admin'], principal: { sub: 'local-user' } });
    granted.send(mcpMessage('tools/call', { name: 'admin', arguments: {} }, { id: 1 }));
    expect(await granted.response(1)).toMatchObject({ result: { content: [{ text: 'done' }] } });
    const anonymous = connect(kernel);
    anonymous.send(mcpMessage('tools/call', { name: 'admin', arguments: {} }, { id: 1 }));
    expect(await anonymous.response(1)).toMatchObject({ error: { code: -31403 } });
    granted.end();
    anonymous.end();
    await Promise.all([granted.served, anonymous.served]);
  });

  it('serves the last line of the input even without a final newline', async () => {
    const pipe = connect(fixtureKernel().kernel);
    pipe.raw(JSON.stringify(mcpMessage('tools/list', {}, { id: 'last' })));
    pipe.end();
    await pipe.served;
    expect(pipe.messages()).toEqual([expect.objectContaining({ id: 'last' })]);
  });

  describe('the 2025 era', () => {
    const initialize = (id: unknown, capabilities: Record<string, unknown> = {}) => ({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'old', version: '1' } },
    });

    /** A connection pinned to the 2025 era by an initialize that declared elicitation. */
    const initialized = async () => {
      const pipe = connect(fixtureKernel().kernel);
      pipe.send(initialize(0, { elicitation: {} }));
      await pipe.response(0);
      return pipe;
    };

    /** Calls the tool that asks a name, and returns the elicitation request the server wrote for it. */
    const askName = (pipe: ReturnType<typeof connect>, id: string | number) => {
      pipe.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: {} } });
      return pipe.until((m) => m.method === 'elicitation/create');
    };

    it('pins the connection on initialize and serves 2025-shaped results to requests without _meta', async () => {
      const pipe = connect(fixtureKernel().kernel);
      pipe.send(initialize(0));
      expect(await pipe.response(0)).toMatchObject({
        result: { protocolVersion: '2025-06-18', serverInfo: { name: 'stdio-unit' }, capabilities: { tools: {} } },
      });
      pipe.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      pipe.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'old' } } });
      pipe.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      const call = await pipe.response(1);
      expect(call.result).toEqual({ content: [{ type: 'text', text: 'old' }] });
      expect(await pipe.response(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
      pipe.end();
      await pipe.served;
    });

    it('asks for elicitation with a request on the pipe and finishes the call with the answer read back', async () => {
      const pipe = await initialized();
      const asked = await askName(pipe, 1);
      expect(asked.id).toMatch(/^srv-/);
      expect(asked.params).toMatchObject({ message: 'Name?' });
      // A reply to an id nobody asked is refused precisely and changes nothing.
      pipe.send({ jsonrpc: '2.0', id: 'srv-unknown', result: { action: 'accept', content: { name: 'Eve' } } });
      expect(await pipe.until((m) => m.id === null && 'error' in m)).toMatchObject({
        error: { code: -32600, message: expect.stringContaining('no server request with this id') },
      });
      pipe.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } });
      expect(await pipe.response(1)).toMatchObject({ result: { content: [{ type: 'text', text: 'Hello Ada' }] } });
      pipe.end();
      await pipe.served;
    });

    it('cancels a call that waits for the client: no answer is written and the request is withdrawn', async () => {
      const pipe = await initialized();
      const asked = await askName(pipe, 'c');
      pipe.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } });
      await settle();
      pipe.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Late' } } });
      expect(await pipe.until((m) => m.id === null && 'error' in m)).toMatchObject({ error: { code: -32600 } });
      expect(pipe.messages().some((m) => m.id === 'c')).toBe(false);
      pipe.end();
      await pipe.served;
    });

    it('lets a dual-era client probe with server/discover and then fall back to initialize', async () => {
      const pipe = connect(fixtureKernel().kernel);
      pipe.send(mcpMessage('server/discover', {}, { id: 'probe' }));
      expect(await pipe.response('probe')).toMatchObject({ result: { supportedVersions: ['2026-07-28'] } });
      pipe.send(initialize(0));
      expect(await pipe.response(0)).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
      pipe.end();
      await pipe.served;
    });

    it('answers initialize on a connection already modern with -32022 naming the supported revision', async () => {
      const pipe = connect(fixtureKernel().kernel);
      pipe.send(mcpMessage('tools/list', {}, { id: 1 }));
      await pipe.response(1);
      pipe.send(initialize(2));
      expect(await pipe.response(2)).toMatchObject({
        error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-06-18' } },
      });
      // A response on a modern connection answers nothing the server asked.
      pipe.send({ jsonrpc: '2.0', id: 'srv-x', result: {} });
      expect(await pipe.until((m) => m.id === null)).toMatchObject({
        error: { code: -32600, message: expect.stringContaining('does not accept JSON-RPC responses') },
      });
      pipe.end();
      await pipe.served;
    });

    it("refuses the 2025 era with -32022 when legacy is 'off'", async () => {
      const pipe = connect(new McpKernel({ name: 'modern-only', version: '1', legacy: { mode: 'off' } }));
      pipe.send(initialize(0));
      expect(await pipe.response(0)).toMatchObject({
        error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-06-18' } },
      });
      pipe.end();
      await pipe.served;
    });
  });
});
