import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Content, MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient, sseMessages } from '../../src/testing/index.js';
import { closeListening, LiveResponse, listenOnLoopback } from '../support/sse-client.js';

describe('progress and logging on the request stream', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let url: string;
  let started: () => void;
  let aborted: Promise<boolean>;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'streaming', version: '1.0.0' })]);
    mcp = createMcpTestClient(app);
    const server = app.get(MCPServer);
    const noArgs = { type: 'object' };
    server.addTool({
      name: 'count',
      description: 'Reports progress three times, once with a value that does not increase and once above its total',
      inputSchema: noArgs,
      handler: (_a: object, _i: unknown, ctx: McpContext) => {
        ctx.reportProgress({ progress: 1, total: 3, message: 'one' });
        ctx.reportProgress({ progress: 1, total: 3, message: 'one again' });
        ctx.reportProgress(2);
        ctx.reportProgress({ progress: 2.5, total: 2 });
        ctx.reportProgress({ progress: 3, total: 3 });
        return Content.text('counted');
      },
    });
    server.addTool({
      name: 'chatty',
      description: 'Logs at three levels',
      inputSchema: noArgs,
      handler: (_a: object, _i: unknown, ctx: McpContext) => {
        ctx.log('debug', 'debug detail');
        ctx.log('info', { step: 'info' }, 'worker');
        ctx.log('error', 'something failed');
        return Content.text('logged');
      },
    });
    server.addTool({
      name: 'forever',
      description: 'Runs until the client goes away',
      inputSchema: noArgs,
      handler: (_a: object, _i: unknown, ctx: McpContext) => {
        aborted = new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            ctx.reportProgress(2); // dropped: the request is over
            resolve(ctx.signal.aborted);
          });
        });
        ctx.reportProgress(1);
        started();
        return new Promise(() => undefined);
      },
    });
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  it('streams notifications/progress as SSE before the result when the request carries a progress token, strictly increasing and never above its total', async () => {
    const res = await mcp.post(
      mcpMessage('tools/call', { name: 'count', arguments: {} }, { id: 7, meta: { progressToken: 'tok-1' } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.text).toMatch(/^event: message\ndata: /);
    const messages = sseMessages(res.text);
    expect(messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok-1', progress: 1, total: 3, message: 'one' },
      },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 2 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 3, total: 3 } },
      expect.objectContaining({
        jsonrpc: '2.0',
        id: 7,
        result: expect.objectContaining({ content: [{ type: 'text', text: 'counted' }], resultType: 'complete' }),
      }),
    ]);
  });

  it('echoes a numeric progress token', async () => {
    const res = await mcp.post(
      mcpMessage('tools/call', { name: 'count', arguments: {} }, { meta: { progressToken: 5 } }),
    );
    expect(res.status).toBe(200);
    expect(sseMessages(res.text)[0]).toMatchObject({ params: { progressToken: 5 } });
  });

  it('opens no stream without a progress token', async () => {
    const res = await mcp.post(mcpMessage('tools/call', { name: 'count', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'counted' }]);
  });

  it('sends no log messages when the request sets no log level', async () => {
    const res = await mcp.post(mcpMessage('tools/call', { name: 'chatty', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'logged' }]);
  });

  it('sends notifications/message at or above the requested level on that request stream', async () => {
    const res = await mcp.post(
      mcpMessage(
        'tools/call',
        { name: 'chatty', arguments: {} },
        { meta: { 'io.modelcontextprotocol/logLevel': 'info' } },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const messages = sseMessages(res.text);
    expect(messages.slice(0, 2)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: { step: 'info' }, logger: 'worker' },
      },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'something failed' } },
    ]);
    expect(messages).toHaveLength(3);
    expect(messages[2].result).toBeDefined();
  });

  it('rejects an unknown log level with -32602', async () => {
    const res = await mcp.post(
      mcpMessage(
        'tools/call',
        { name: 'chatty', arguments: {} },
        { meta: { 'io.modelcontextprotocol/logLevel': 'loud' } },
      ),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32602);
  });

  it('cancels the call when the client closes the stream: the handler signal fires and nothing more is sent', async () => {
    const running = new Promise<void>((resolve) => (started = resolve));
    const live = await LiveResponse.post(
      url,
      mcpMessage('tools/call', { name: 'forever', arguments: {} }, { meta: { progressToken: 'p' } }),
    );
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await running;
    expect(await live.next()).toMatchObject({
      method: 'notifications/progress',
      params: { progressToken: 'p', progress: 1 },
    });
    live.close();
    expect(await aborted).toBe(true);
    expect(await live.rest()).toEqual([]);
  });
});
