import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createServer, request as httpRequest, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import {
  createMcpTestClient,
  mcpHeaders,
  mcpMessage,
  sseMessages,
  type McpTestResponse,
} from '../../src/testing/index.js';

/** POSTs a body gzip-compressed, as raw bytes (superagent would otherwise serialize the Buffer as JSON). */
const postGzipped = (app: INestApplication, body: Record<string, unknown>) =>
  request(app.getHttpServer())
    .post('/mcp')
    .set({ ...mcpHeaders(body), 'content-encoding': 'gzip' })
    .serialize((data) => data)
    .send(gzipSync(JSON.stringify(body)) as unknown as string);

const MAX_BODY = 2048;

/** The HTTP ladder, rung by rung, must answer the same on every adapter: the driver owns the route. */
describe.each(HTTP_ADAPTERS)('McpModule on %s', (adapter) => {
  let app: INestApplication;
  const signals: AbortSignal[] = [];

  beforeAll(async () => {
    app = await createApp(
      [McpModule.forRoot({ name: 'adapters', version: '1.0.0', http: { maxBodyBytes: MAX_BODY } })],
      [],
      adapter,
    );
    const server = app.get(MCPServer);
    server.registerTool(
      'add',
      'Adds two numbers',
      {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      ({ a, b }: { a: number; b: number }) => a + b,
    );
    server.registerTool(
      'count',
      'Reports progress three times',
      { type: 'object' },
      async (_args: unknown, _answers: unknown, ctx: McpContext) => {
        for (const progress of [1, 2, 3]) ctx.reportProgress({ progress, total: 3 });
        return 'counted';
      },
    );
    server.registerTool(
      'wait',
      'Waits until the client goes away',
      { type: 'object' },
      (_args: unknown, _answers: unknown, ctx: McpContext) => {
        signals.push(ctx.signal);
        return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted')));
      },
    );
    server.registerTool(
      'peek',
      'Keeps its signal',
      { type: 'object' },
      (_args: unknown, _answers: unknown, ctx: McpContext) => {
        signals.push(ctx.signal);
        return 'peeked';
      },
    );
    server.registerTool(
      'body_headers',
      'Returns the body headers the handler sees',
      { type: 'object' },
      (_args: unknown, _answers: unknown, ctx: McpContext) => {
        const { headers } = ctx.httpRequest as { headers: Record<string, string | undefined> };
        return {
          type: headers['content-type'],
          length: headers['content-length'],
          encoding: headers['transfer-encoding'] ?? null,
        };
      },
    );
    server.addTool({
      name: 'needs_sampling',
      inputSchema: { type: 'object' },
      requiredCapabilities: { sampling: {} },
      handler: () => 'sampled',
    });
  });
  afterAll(() => app.close());

  const expectJsonRpcError = (res: McpTestResponse, status: number, code: number) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.jsonrpc).toBe('2.0');
    expect(res.body.error.code).toBe(code);
  };

  it('refuses a foreign Host with 403', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('server/discover'), { host: 'evil.example.com' });
    expectJsonRpcError(res, 403, -32600);
  });

  it('refuses a foreign Origin with 403', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('server/discover'), {
      origin: 'http://evil.example.com',
    });
    expectJsonRpcError(res, 403, -32600);
  });

  it('answers GET with 405 and Allow: POST', async () => {
    const res = await request(app.getHttpServer()).get('/mcp').set('accept', 'text/event-stream');
    expectJsonRpcError(res, 405, -32000);
    expect(res.headers.allow).toBe('POST');
  });

  it('answers a non-JSON media type with 415', async () => {
    const res = await createMcpTestClient(app).post(JSON.stringify(mcpMessage('server/discover')), {
      'content-type': 'text/plain',
    });
    expectJsonRpcError(res, 415, -32600);
  });

  it('answers a missing Content-Type with 415', async () => {
    const res = await request(app.getHttpServer())
      .post('/mcp')
      .send(Buffer.from(JSON.stringify(mcpMessage('server/discover'))));
    expectJsonRpcError(res, 415, -32600);
  });

  it('answers a body over the limit with 413, before and after decompression', async () => {
    const big = mcpMessage('server/discover', { padding: 'x'.repeat(MAX_BODY) });
    expectJsonRpcError(await createMcpTestClient(app).post(big), 413, -32600);
    expect(gzipSync(JSON.stringify(big)).length).toBeLessThan(MAX_BODY);
    expectJsonRpcError(await postGzipped(app, big), 413, -32600);
  });

  it("takes the driver's body limit, not the framework's 1 MiB default", async () => {
    const roomy = await createApp(
      [McpModule.forRoot({ name: 'roomy', version: '1.0.0', http: { maxBodyBytes: 3 * 1024 * 1024 } })],
      [],
      adapter,
    );
    try {
      const res = await createMcpTestClient(roomy).post(
        mcpMessage('server/discover', { padding: 'x'.repeat(2 * 1024 * 1024) }),
      );
      expect(res.status).toBe(200);
      expect(res.body.result.supportedVersions).toEqual(['2026-07-28']);
    } finally {
      await roomy.close();
    }
  });

  it('accepts a gzip body within the limit', async () => {
    const res = await postGzipped(app, mcpMessage('server/discover'));
    expect(res.status).toBe(200);
    expect(res.body.result.supportedVersions).toEqual(['2026-07-28']);
  });

  it('answers invalid JSON with -32700 and HTTP 400', async () => {
    const res = await createMcpTestClient(app).post('{"jsonrpc":"2.0",', { 'mcp-method': 'tools/list' });
    expectJsonRpcError(res, 400, -32700);
    expect(res.body.id).toBeNull();
  });

  it('answers a batch and a non-object with -32600', async () => {
    expectJsonRpcError(await createMcpTestClient(app).post([mcpMessage('server/discover')]), 400, -32600);
    expectJsonRpcError(await createMcpTestClient(app).post('"hello"'), 400, -32600);
    expectJsonRpcError(await createMcpTestClient(app).post('null'), 400, -32600);
  });

  it('accepts a notification with 202 and an empty body', async () => {
    const res = await createMcpTestClient(app).post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('answers a request without the _meta envelope with -32602', async () => {
    const res = await createMcpTestClient(app).post(
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
      { 'mcp-method': 'tools/list' },
    );
    expectJsonRpcError(res, 400, -32602);
    expect(res.body.id).toBe(7);
  });

  it('answers a header that contradicts the body with -32020', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('tools/list'), { 'mcp-method': 'prompts/list' });
    expectJsonRpcError(res, 400, -32020);
  });

  it('answers an unsupported protocol version with -32022 and the supported list', async () => {
    const body = mcpMessage(
      'server/discover',
      {},
      { meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
    );
    const res = await createMcpTestClient(app).post(body, { 'mcp-protocol-version': '2099-01-01' });
    expectJsonRpcError(res, 400, -32022);
    expect(res.body.error.data.supported).toEqual(['2026-07-28']);
  });

  it('answers a missing client capability with -32021', async () => {
    const res = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'needs_sampling', arguments: {} }),
    );
    expectJsonRpcError(res, 400, -32021);
    expect(res.body.error.data.requiredCapabilities).toEqual({ sampling: {} });
  });

  it('answers unknown and removed methods with -32601 and HTTP 404', async () => {
    expectJsonRpcError(await createMcpTestClient(app).post(mcpMessage('unknown/method')), 404, -32601);
    expectJsonRpcError(await createMcpTestClient(app).post(mcpMessage('ping')), 404, -32601);
    expectJsonRpcError(await createMcpTestClient(app).post(mcpMessage('initialize')), 404, -32601);
  });

  it('calls a tool and validates its arguments', async () => {
    const ok = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }),
    );
    expect(ok.status).toBe(200);
    expect(ok.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: '5' }] });
    const invalid = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'add', arguments: { a: 2 } }));
    expect(invalid.status).toBe(200);
    expect(invalid.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Missing required argument: b' }],
    });
  });

  it('leaves the body headers as they arrived for the handler (and anything else after the body layer)', async () => {
    const body = mcpMessage('tools/call', { name: 'body_headers', arguments: {} });
    const res = await createMcpTestClient(app).post(body);
    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent ?? JSON.parse(res.body.result.content[0].text)).toEqual({
      type: 'application/json',
      length: String(Buffer.byteLength(JSON.stringify(body))),
      encoding: null,
    });
    // Written in two parts without a length: the body arrives chunked.
    const text = JSON.stringify(body);
    const chunkedRequest = request(app.getHttpServer()).post('/mcp').set(mcpHeaders(body));
    chunkedRequest.write(text.slice(0, 20));
    chunkedRequest.write(text.slice(20));
    const chunked = await chunkedRequest.expect(200);
    expect(JSON.parse(chunked.body.result.content[0].text)).toMatchObject({
      type: 'application/json',
      encoding: 'chunked',
    });
  });

  it('lists tools as one JSON document', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('tools/list'));
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'add',
      'count',
      'wait',
      'peek',
      'body_headers',
      'needs_sampling',
    ]);
    expect(res.body.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'public' });
    expect(res.body.result._meta['io.modelcontextprotocol/serverInfo']).toEqual({ name: 'adapters', version: '1.0.0' });
  });

  it("aborts the handler's signal when the client goes away, and only then", async () => {
    signals.length = 0;
    expect(
      (await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'peek', arguments: {} }))).status,
    ).toBe(200);
    expect(signals[0].aborted).toBe(false);
    // A client that gives up after 300 ms, which the kit's client does not do: supertest sends the kit's request.
    const wait = mcpMessage('tools/call', { name: 'wait', arguments: {} });
    await expect(
      request(app.getHttpServer()).post('/mcp').set(mcpHeaders(wait)).send(JSON.stringify(wait)).timeout(300),
    ).rejects.toThrow(/Timeout/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signals[1].aborted).toBe(true);
    expect(signals[0].aborted).toBe(false);
  });

  it('streams progress as SSE before the result', async () => {
    const res = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'count', arguments: {} }, { meta: { progressToken: 'p1' } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const messages = sseMessages(res.text);
    expect(messages.map((m) => (m.params as { progress?: number } | undefined)?.progress)).toEqual([
      1,
      2,
      3,
      undefined,
    ]);
    expect(messages[3]).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'counted' }] } });
  });
});

/** Behind a global prefix the MCP route still owns its body: the front layer follows the prefixed path. */
describe.each(HTTP_ADAPTERS)('McpModule behind a global prefix on %s', (adapter) => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'prefixed', version: '1.0.0' })],
    }).compile();
    app =
      adapter === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    app.setGlobalPrefix('api');
    await app.init();
    if (adapter === 'fastify') await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  it('serves /api/mcp and refuses a wrong media type with its own 415', async () => {
    const ok = await createMcpTestClient(app, { path: '/api/mcp' }).post(mcpMessage('server/discover'));
    expect(ok.status).toBe(200);
    expect(ok.body.result.supportedVersions).toEqual(['2026-07-28']);
    const refused = await createMcpTestClient(app, { path: '/api/mcp' }).post(
      JSON.stringify(mcpMessage('server/discover')),
      { 'content-type': 'text/plain' },
    );
    expect(refused.status).toBe(415);
    expect(refused.body.error.code).toBe(-32600);
  });

  it('answers invalid JSON on the prefixed route with -32700', async () => {
    const res = await createMcpTestClient(app, { path: '/api/mcp' }).post('{', { 'mcp-method': 'tools/list' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32700);
  });
});

describe("McpModule on fastify: the app's own hooks on the MCP route", () => {
  let app: INestApplication;
  const seen: Array<{ hook: string; type?: string; length?: string }> = [];

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'hooked', version: '1.0.0' })],
    }).compile();
    const adapter = new FastifyAdapter();
    // App-wide hooks, as a plugin adds them: each runs on the MCP route too, after the body was read.
    for (const hook of ['preHandler', 'onResponse'] as const)
      adapter.getInstance().addHook(hook, async (req) => {
        const { 'content-type': type, 'content-length': length } = req.headers;
        if (req.url === '/mcp') seen.push({ hook, type, length });
      });
    app = moduleRef.createNestApplication(adapter, { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  it('see the body headers as they arrived', async () => {
    const body = mcpMessage('server/discover');
    const res = await createMcpTestClient(app).post(body);
    expect(res.status).toBe(200);
    const arrived = { type: 'application/json', length: String(Buffer.byteLength(JSON.stringify(body))) };
    expect(seen).toEqual([
      { hook: 'preHandler', ...arrived },
      { hook: 'onResponse', ...arrived },
    ]);
  });
});

describe('McpModule on express: every path Express routes to the MCP controller', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'paths', version: '1.0.0', http: { maxBodyBytes: MAX_BODY } })]);
  });
  afterAll(() => app.close());

  // Express routes are case-insensitive and ignore a trailing slash; the body layer must own the body there too,
  // or Nest's JSON parser consumes it and the driver waits for a body that never comes.
  it.each(['/mcp/', '/MCP', '/Mcp/?x=1'])("serves %s, under the driver's body rules", async (path) => {
    const ok = await createMcpTestClient(app, { path }).post(mcpMessage('server/discover'));
    expect(ok.status).toBe(200);
    expect(ok.body.result.supportedVersions).toEqual(['2026-07-28']);
    const big = await createMcpTestClient(app, { path }).post(
      mcpMessage('server/discover', { padding: 'x'.repeat(MAX_BODY) }),
    );
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  // What a client sends through a forward proxy, and what some proxies pass on: Express routes it by its path.
  it("serves a request whose target is an absolute URL, under the driver's body rules", async () => {
    // A server of its own over the app's Express handler: supertest holds the app's.
    const server = createServer(app.getHttpAdapter().getInstance() as RequestListener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const body = '{"jsonrpc":"2.0",';
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: `http://localhost:${port}/mcp`,
            headers: {
              ...mcpHeaders(mcpMessage('tools/list')),
              host: `localhost:${port}`,
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      // Not Nest's parser's error page: the MCP route read the body itself.
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

/** The OAuth resource-server parts answer the same on every adapter: the 401 challenge and the metadata URLs. */
describe.each(HTTP_ADAPTERS)('McpModule with auth on %s', (adapter) => {
  let app: INestApplication;
  const auth = {
    resource: 'https://mcp.example.com/mcp',
    authorizationServers: ['https://auth.example.com'],
    verify: () => null,
  };

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'guarded', version: '1.0.0', auth })], [], adapter);
  });
  afterAll(() => app.close());

  it('serves the metadata at its path-inserted URL', async () => {
    const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/mcp').expect(200);
    expect(res.body).toMatchObject({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
    });
  });

  it('leaves the root well-known URL to a resource without a path (RFC 9728 §3.3)', async () => {
    await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource').expect(404);
  });

  it('answers an anonymous request with 401 and a challenge naming the metadata', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('server/discover'));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain(
      'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });
});
