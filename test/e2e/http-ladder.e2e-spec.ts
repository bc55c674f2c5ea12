import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { InputRequired, MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';

/** The Streamable HTTP rules of 2026-07-28, rung by rung, through a real Nest app. */
describe('MCP endpoint: the HTTP ladder', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let calls = 0;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'ladder', version: '1.0.0', http: { maxBodyBytes: 64 * 1024 } })]);
    mcp = createMcpTestClient(app);
    const server = app.get(MCPServer);
    server.registerTool('canary', 'Counts calls', { type: 'object' }, () => `call ${++calls}`);
    server.registerTool(
      'echo',
      'Echoes text',
      { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      (a: { text: string }) => a.text,
    );
    server.registerTool('boom', 'Fails', { type: 'object' }, () => {
      throw new Error('the backend is down');
    });
    server.registerTool('ask', 'Needs confirmation', { type: 'object' }, () => {
      throw new InputRequired({
        ok: {
          method: 'elicitation/create',
          params: { message: 'Proceed?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
        },
      });
    });
  });
  afterAll(() => app.close());
  beforeEach(() => (calls = 0));

  const expectNoDispatch = () => expect(calls).toBe(0);
  const canaryCall = () => mcpMessage('tools/call', { name: 'canary', arguments: {} });

  describe('rung 1: Host and Origin (DNS-rebinding protection)', () => {
    it('refuses a foreign Host with 403 before anything else', async () => {
      const res = await mcp.post(canaryCall(), { host: 'evil.example.com' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringContaining('Host') } });
      expectNoDispatch();
    });

    it('refuses a foreign Origin with 403', async () => {
      expect((await mcp.post(canaryCall(), { origin: 'http://evil.example.com' })).status).toBe(403);
      expectNoDispatch();
    });

    it('refuses an opaque "null" Origin', async () => {
      expect((await mcp.post(canaryCall(), { origin: 'null' })).status).toBe(403);
    });

    it('refuses a foreign Host even on GET, before the verb check', async () => {
      await request(app.getHttpServer()).get('/mcp').set('host', 'evil.example.com').expect(403);
    });

    it('accepts a loopback Host with a port and a matching Origin', async () => {
      const res = await mcp.post(canaryCall(), {
        host: '127.0.0.1:3000',
        origin: 'http://127.0.0.1:3000',
      });
      expect(res.status).toBe(200);
      expect(res.body.result.content[0].text).toBe('call 1');
    });

    it('accepts localhost and [::1]', async () => {
      expect((await mcp.post(mcpMessage('server/discover'), { host: 'localhost:8080' })).status).toBe(200);
      expect((await mcp.post(mcpMessage('server/discover'), { host: '[::1]:8080' })).status).toBe(200);
    });
  });

  describe('rung 2: only POST', () => {
    it.each(['get', 'delete', 'put', 'patch'] as const)('answers %s with 405 and Allow: POST', async (verb) => {
      const res = await request(app.getHttpServer())[verb]('/mcp').expect(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });
  });

  describe('rung 3: the body', () => {
    it('answers invalid JSON with -32700 / 400 and a null id', async () => {
      const res = await mcp.post('{"jsonrpc": "2.0", "id": 1,', {
        'content-type': 'application/json',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
    });

    it('answers an empty body with -32700 / 400', async () => {
      const res = await request(app.getHttpServer())
        .post('/mcp')
        .set('content-type', 'application/json')
        .send('')
        .expect(400);
      expect(res.body.error.code).toBe(-32700);
    });

    it.each([
      ['a batch', [canaryCall()], null],
      ['an empty batch', [], null],
      ['a JSON-RPC response', { jsonrpc: '2.0', id: 7, result: {} }, null],
      ['a number', 1, null],
      ['a string', '"tools/list"', null],
    ])('answers %s with -32600 / 400 and dispatches nothing', async (_label, body, id) => {
      const res = await mcp.post(typeof body === 'string' ? body : JSON.stringify(body), {
        'content-type': 'application/json',
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32600);
      expect(res.body.id).toBe(id);
      expectNoDispatch();
    });

    it('answers a null id with -32600 / 400', async () => {
      const res = await mcp.post({ ...canaryCall(), id: null });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32600);
      expectNoDispatch();
    });

    it('answers a body over the limit with 413 and a JSON-RPC error, without dispatching', async () => {
      const big = mcpMessage('tools/call', { name: 'canary', arguments: { pad: 'x'.repeat(100 * 1024) } });
      const res = await mcp.post(big);
      expect(res.status).toBe(413);
      expect(res.body.jsonrpc).toBe('2.0');
      expect(res.body.error.message).toMatch(/limit/);
      expectNoDispatch();
    });

    it('answers a non-JSON Content-Type with 415 and a JSON-RPC error', async () => {
      const res = await mcp.post(canaryCall(), { 'content-type': 'text/plain' });
      expect(res.status).toBe(415);
      expect(res.body.error).toBeDefined();
      expectNoDispatch();
    });

    it('accepts application/json with a utf-8 charset', async () => {
      expect((await mcp.post(canaryCall(), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    });
  });

  it('rung 4: a notification gets 202 with no body and runs nothing', async () => {
    const { id: _id, ...notification } = canaryCall();
    const res = await mcp.post(notification);
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expectNoDispatch();
  });

  it('rung 5: initialize without the 2026-07-28 claim is a 2025-era client, served statelessly', async () => {
    const res = await mcp.post(
      {
        jsonrpc: '2.0',
        id: 'init-1',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {} },
      },
      {
        'mcp-protocol-version': undefined,
        'mcp-method': undefined,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: 'init-1',
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'ladder' } },
    });
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  it('rung 5: initialize claiming 2026-07-28 gets -32601 / 404 before the envelope checks', async () => {
    const res = await mcp.post(mcpMessage('initialize', { protocolVersion: '2025-11-25' }, { id: 'init-2' }));
    expect(res.status).toBe(404);
    expect(res.body.id).toBe('init-2');
    expect(res.body.error.code).toBe(-32601);
    expect(res.body.error.message).toMatch(/removed by the stateless 2026-07-28 specification/);
    expect(res.body.error.data).toEqual({ supported: ['2026-07-28'] });
  });

  describe('rung 6: the _meta envelope', () => {
    const meta = (body: Record<string, unknown>) => (body.params as { _meta: Record<string, unknown> })._meta;

    it('answers a missing _meta with -32602 / 400, echoing the id', async () => {
      const res = await mcp.post({
        jsonrpc: '2.0',
        id: 101,
        method: 'server/discover',
        params: {},
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ id: 101, error: { code: -32602 } });
    });

    it('answers a missing protocol version in _meta with -32602 / 400', async () => {
      const body = mcpMessage('server/discover', {}, { id: 102 });
      delete meta(body)['io.modelcontextprotocol/protocolVersion'];
      const res = await mcp.post(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ id: 102, error: { code: -32602 } });
    });

    it('answers missing client capabilities with -32602 / 400', async () => {
      const body = mcpMessage('server/discover', {}, { id: 104 });
      delete meta(body)['io.modelcontextprotocol/clientCapabilities'];
      const res = await mcp.post(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ id: 104, error: { code: -32602 } });
    });

    it('does not require clientInfo', async () => {
      const body = mcpMessage('server/discover', {}, { id: 105 });
      delete meta(body)['io.modelcontextprotocol/clientInfo'];
      expect((await mcp.post(body)).status).toBe(200);
    });
  });

  describe('rung 7: headers mirror the body', () => {
    it.each([
      ['MCP-Protocol-Version missing', { 'mcp-protocol-version': undefined }],
      ['MCP-Protocol-Version different', { 'mcp-protocol-version': '2025-11-25' }],
      ['Mcp-Method missing', { 'mcp-method': undefined }],
      ['Mcp-Method in another case', { 'mcp-method': 'TOOLS/CALL' }],
      ['Mcp-Name missing', { 'mcp-name': undefined }],
      ['Mcp-Name different', { 'mcp-name': 'echo' }],
      ['Mcp-Name badly base64-encoded', { 'mcp-name': '=?base64?Y2FuYXJ5?=x' }],
    ])('answers %s with -32020 / 400 and dispatches nothing', async (_label, headers) => {
      const res = await mcp.post({ ...canaryCall(), id: 'h' }, headers);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ id: 'h', error: { code: -32020 } });
      expectNoDispatch();
    });

    it('accepts a base64-encoded Mcp-Name', async () => {
      expect(
        (
          await mcp.post(canaryCall(), {
            'mcp-name': `=?base64?${Buffer.from('canary').toString('base64')}?=`,
          })
        ).status,
      ).toBe(200);
    });

    it('checks the header against the body before the version (body v999 with a valid header → -32020)', async () => {
      const body = mcpMessage(
        'server/discover',
        {},
        { id: 302, meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } },
      );
      const res = await mcp.post(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ id: 302, error: { code: -32020 } });
    });
  });

  it('rung 8: an unsupported version gets -32022 / 400 with supported and requested', async () => {
    const body = mcpMessage(
      'server/discover',
      {},
      { id: 301, meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } },
    );
    const res = await mcp.post(body, { 'mcp-protocol-version': 'v999.0.0' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 301,
      error: { code: -32022, message: expect.any(String), data: { supported: ['2026-07-28'], requested: 'v999.0.0' } },
    });
  });

  describe('rung 9: the kernel, with statuses from the one table', () => {
    it.each(['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'unknown/method'])(
      'answers %s with -32601 / 404',
      async (method) => {
        const res = await mcp.post(mcpMessage(method, {}, { id: 500 }));
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ id: 500, error: { code: -32601 } });
      },
    );

    it('answers invalid tools/call params with -32602 / 400', async () => {
      const res = await mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: 'text' }));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32602);
    });

    it('answers tools/list with the registered tools', async () => {
      const res = await mcp.post(mcpMessage('tools/list'));
      expect(res.status).toBe(200);
      expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['canary', 'echo', 'boom', 'ask']);
      expect(res.body.result).toMatchObject({
        resultType: 'complete',
        ttlMs: expect.any(Number),
        cacheScope: expect.any(String),
      });
    });

    it('answers server/discover with versions, capabilities and the server identity', async () => {
      const res = await mcp.post(mcpMessage('server/discover'));
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'ladder', version: '1.0.0' } },
      });
    });

    it('calls a tool and answers one compact application/json object', async () => {
      const res = await mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hello' } }));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.text).not.toContain('\n');
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          content: [{ type: 'text', text: 'hello' }],
          resultType: 'complete',
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'ladder', version: '1.0.0' } },
        },
      });
    });

    it('answers an unknown tool with "Tool not found"', async () => {
      const res = await mcp.post(mcpMessage('tools/call', { name: 'nope', arguments: {} }));
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Tool not found' }] });
    });

    it('answers a missing required argument with "Missing required argument: text"', async () => {
      const res = await mcp.post(mcpMessage('tools/call', { name: 'echo', arguments: {} }));
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Missing required argument: text' }],
      });
    });

    it('answers a handler error with "Error: <message>" and no stack trace', async () => {
      const res = await mcp.post(mcpMessage('tools/call', { name: 'boom', arguments: {} }));
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Error: the backend is down' }],
      });
      expect(res.text).not.toMatch(/\s{4}at |node_modules/);
    });

    it('answers an InputRequired with the input_required result and its text', async () => {
      const res = await mcp.post(
        mcpMessage('tools/call', { name: 'ask', arguments: {} }, { clientCapabilities: { elicitation: {} } }),
      );
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { ok: { method: 'elicitation/create' } },
        requests: { ok: { method: 'elicitation/create' } },
        content: [{ type: 'text', text: 'Additional client input is required before this tool can finish.' }],
      });
    });

    it('ignores Mcp-Session-Id: no session is minted or echoed', async () => {
      const res = await mcp.post(mcpMessage('tools/list'), { 'mcp-session-id': 'abc' });
      expect(res.status).toBe(200);
      expect(res.headers['mcp-session-id']).toBeUndefined();
    });

    it('keeps serving after every kind of bad request', async () => {
      expect((await mcp.post('{', { 'content-type': 'application/json' })).status).toBe(400);
      expect((await mcp.post(canaryCall(), { host: 'evil.example.com' })).status).toBe(403);
      const res = await mcp.post(canaryCall());
      expect(res.status).toBe(200);
      expect(res.body.result.content[0].text).toBe('call 1');
    });
  });
});
