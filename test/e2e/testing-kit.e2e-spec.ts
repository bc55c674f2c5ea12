import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { InputRequired, MCPServer, McpModule } from '../../src/index.js';
import {
  createMcpTestClient,
  createToolContext,
  mcpMessage,
  sseMessages,
  type McpTestClient,
} from '../../src/testing/index.js';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { createApp, HTTP_ADAPTERS, type HttpAdapterName } from '../support/create-app.js';
import { registerFeatures } from '../support/feature-server.js';

describe('nestjs-mcp/testing: createMcpTestClient over the real HTTP pipeline', () => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({ name: 'kit', version: '1.0.0', observability: { logFailedCalls: false } }),
    ]);
    registerFeatures(app.get(MCPServer));
    mcp = createMcpTestClient(app);
  });
  afterAll(async () => {
    await mcp.close();
    await app.close();
  });

  it('discovers the server', async () => {
    const { status, result } = await mcp.discover();
    expect(status).toBe(200);
    expect(result?.supportedVersions).toEqual(['2026-07-28']);
  });

  it('lists and calls tools', async () => {
    const tools = await mcp.listTools();
    expect(tools.result?.tools.map((t) => t.name)).toEqual(['add', 'countdown', 'weather', 'book', 'explode']);
    const { result } = await mcp.callTool('add', { a: 2, b: 3 });
    expect(result?.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('fills in the Mcp-Param-* header a tool declares (the server rejects the call without it)', async () => {
    const ok = await mcp.callTool('weather', { region: 'Zürich Nord' });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^application\/json/);
    expect(ok.result?.content).toEqual([{ type: 'text', text: 'sunny in Zürich Nord' }]);
    const without = await mcp.callTool('weather', { region: 'north' }, { headers: { 'mcp-param-region': undefined } });
    expect(without.status).toBe(400);
    expect(without.headers['content-type']).toMatch(/^application\/json/);
    expect(without.error?.code).toBe(-32020);
  });

  it('learns the header rules of a tool registered after its first call', async () => {
    app
      .get(MCPServer)
      .registerTool(
        'late',
        'Registered late',
        { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
        (a: { zone: string }) => a.zone,
      );
    const { status, result } = await mcp.callTool('late', { zone: 'eu' });
    expect(status).toBe(200);
    expect(result?.content).toEqual([{ type: 'text', text: 'eu' }]);
    app.get(MCPServer).removeTool('late');
  });

  it('collects progress notifications from the SSE stream', async () => {
    const { result, progress } = await mcp.callTool('countdown', { n: 3 });
    expect(result?.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it('returns an input_required result as is when no answers are given', async () => {
    const { result, rounds } = await mcp.callTool('book');
    expect(rounds).toBe(0);
    expect((result as { resultType?: string } | undefined)?.resultType).toBe('input_required');
  });

  it('answers input_required rounds from a map', async () => {
    const { result, rounds } = await mcp.callTool(
      'book',
      {},
      {
        answers: {
          elicit_0: { action: 'accept', content: { people: 4 } },
          elicit_1: { action: 'accept', content: { time: '19:30' } },
        },
      },
    );
    expect(rounds).toBe(2);
    expect(result?.content).toEqual([{ type: 'text', text: 'table for 4 at 19:30' }]);
  });

  it('answers input_required rounds from a callback per request', async () => {
    const seen: string[] = [];
    const { result } = await mcp.callTool(
      'book',
      {},
      {
        answers: (request, key) => {
          seen.push(`${key}:${request.method}`);
          const content: Record<string, string | number> = key === 'elicit_0' ? { people: 2 } : { time: 'noon' };
          return { action: 'accept', content };
        },
      },
    );
    expect(seen).toEqual(['elicit_0:elicitation/create', 'elicit_1:elicitation/create']);
    expect(result?.content).toEqual([{ type: 'text', text: 'table for 2 at noon' }]);
  });

  it('fails loudly when an answer is missing', async () => {
    await expect(mcp.callTool('book', {}, { answers: {} })).rejects.toThrow(
      'No answer given for input request "elicit_0"',
    );
  });

  it('reads resources, gets prompts and completes arguments', async () => {
    const read = await mcp.readResource('memo://greeting');
    expect(read.result?.contents).toEqual([
      { uri: 'memo://greeting', mimeType: 'text/plain', text: 'hello from a resource' },
    ]);
    const prompt = await mcp.getPrompt('greet', { who: 'Ada' });
    expect(prompt.result?.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to Ada' } }]);
    const completion = await mcp.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'b' });
    expect(completion.result?.completion.values).toEqual(['bob']);
  });

  it('reports JSON-RPC errors with their HTTP status', async () => {
    const { status, error } = await mcp.getPrompt('nope');
    expect(status).toBe(400);
    expect(error?.code).toBe(-32602);
  });

  describe('post: a raw request, sent as given', () => {
    it('sends an object with the headers derived from it and returns status, headers, text and parsed body', async () => {
      const res = await mcp.post(mcpMessage('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, { id: 7 }));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.text)).toEqual(res.body);
      expect(res.body).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: '3' }] } });
    });

    it('sends a string byte for byte, so malformed JSON reaches the server', async () => {
      const res = await mcp.post('{"jsonrpc": "2.0", "id": 1,');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ id: null, error: { code: -32700 } });
    });

    it('lets a header be overridden (a foreign Host) or removed (the protocol version)', async () => {
      const foreign = await mcp.post(mcpMessage('server/discover'), { host: 'evil.example.com' });
      expect(foreign.status).toBe(403);
      const versionless = await mcp.post(mcpMessage('server/discover', {}, { id: 'v' }), {
        'mcp-protocol-version': undefined,
      });
      expect(versionless.status).toBe(400);
      expect(versionless.body).toMatchObject({ id: 'v', error: { code: -32020 } });
    });

    it('returns an event stream in text, for sseMessages, with no parsed body', async () => {
      const body = mcpMessage(
        'tools/call',
        { name: 'countdown', arguments: { n: 2 } },
        { meta: { progressToken: 'p' } },
      );
      const res = await mcp.post(body);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.body).toBeUndefined();
      expect(sseMessages(res.text).map((m) => m.method ?? 'result')).toEqual([
        'notifications/progress',
        'notifications/progress',
        'result',
      ]);
    });
  });

  it('sends the client-wide headers with every request, raw or not', async () => {
    const foreign = createMcpTestClient(app, { headers: { origin: 'http://evil.example.com' } });
    expect((await foreign.post(mcpMessage('server/discover'))).status).toBe(403);
    await expect(foreign.discover()).resolves.toMatchObject({ status: 403 });
  });
});

/** An app as a user's test makes it: init() only, nothing listening, and for Fastify not yet ready(). */
async function initOnlyApp(adapter: HttpAdapterName, globalPrefix?: string): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [McpModule.forRoot({ name: 'kit', version: '1.0.0' })],
  }).compile();
  const app =
    adapter === 'express'
      ? moduleRef.createNestApplication({ logger: false })
      : moduleRef.createNestApplication(new FastifyAdapter(), { logger: false });
  if (globalPrefix) app.setGlobalPrefix(globalPrefix);
  app.get(MCPServer).registerTool('add', 'Adds', { type: 'object' }, (a: { a: number; b: number }) => a.a + a.b);
  await app.init();
  return app;
}

describe.each(HTTP_ADAPTERS)('nestjs-mcp/testing on a %s app that was only init()ed', (adapter) => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('waits for the adapter to be ready, listens, and calls a tool', async () => {
    app = await initOnlyApp(adapter);
    const { status, result } = await createMcpTestClient(app).callTool('add', { a: 2, b: 3 });
    expect(status).toBe(200);
    expect(result?.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('reports a path the endpoint is not at (a global prefix left out) with the path and the status', async () => {
    app = await initOnlyApp(adapter, 'api');
    await expect(createMcpTestClient(app).discover()).rejects.toThrow(
      /^MCP test client: POST \/mcp answered HTTP 404 with no JSON-RPC message/,
    );
    const { status } = await createMcpTestClient(app, { path: '/api/mcp' }).discover();
    expect(status).toBe(200);
  });
});

describe('nestjs-mcp/testing: createToolContext for handler unit tests', () => {
  it('records progress and logs, and asks for input through InputRequired', async () => {
    const handler = async (_args: unknown, _inputs: unknown, ctx: ReturnType<typeof createToolContext>['context']) => {
      ctx.reportProgress({ progress: 1, total: 2 });
      ctx.log('info', 'halfway');
      const answer = await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } } });
      return `hi ${String(answer.content?.name)}`;
    };
    const first = createToolContext({ logLevel: 'info' });
    await expect(handler({}, first.context.inputResponses, first.context)).rejects.toBeInstanceOf(InputRequired);
    expect(first.notifications.map((n) => n.method)).toEqual(['notifications/progress', 'notifications/message']);

    const second = createToolContext({ inputResponses: { elicit_0: { action: 'accept', content: { name: 'Ada' } } } });
    await expect(handler({}, second.context.inputResponses, second.context)).resolves.toBe('hi Ada');
  });

  it('aborts the context signal', () => {
    const { context, abort } = createToolContext();
    abort();
    expect(context.signal.aborted).toBe(true);
  });
});
