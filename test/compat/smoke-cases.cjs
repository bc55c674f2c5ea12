'use strict';
// The smoke test both compat apps run, over real HTTP (supertest) against their own Nest app. Each app hands
// in what it loaded its own way (require or import), so the cases are shared and the module formats are not.
const { test, after, before } = require('node:test');
const assert = require('node:assert/strict');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const PROTOCOL_VERSION = '2026-07-28';

function envelope(id, method, params = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'compat', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

function defineSmokeTests({ label, appDir, NestFactory, AppModule, request, testing, expressEntry, expectedNestMajor }) {
  const nestVersion = JSON.parse(readFileSync(join(appDir, 'node_modules/@nestjs/core/package.json'), 'utf8')).version;
  let app;
  const post = (body, name) => {
    let req = request(app.getHttpServer())
      .post('/mcp')
      .set('content-type', 'application/json')
      .set('accept', 'application/json, text/event-stream')
      .set('mcp-protocol-version', PROTOCOL_VERSION)
      .set('mcp-method', body.method);
    if (name) req = req.set('mcp-name', name);
    return req.send(JSON.stringify(body));
  };

  before(async () => {
    app = await NestFactory.create(AppModule, { logger: false });
    await app.init();
  });
  after(async () => {
    await app.close();
  });

  test(`${label}: runs on Nest ${expectedNestMajor}`, () => {
    assert.equal(Number(nestVersion.split('.')[0]), expectedNestMajor);
  });

  test(`${label}: server/discover`, async () => {
    const res = await post(envelope(1, 'server/discover'));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.result.supportedVersions, [PROTOCOL_VERSION]);
  });

  test(`${label}: tools/list`, async () => {
    const res = await post(envelope(2, 'tools/list'));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.result.tools.map((t) => t.name), ['echo']);
  });

  test(`${label}: tools/call`, async () => {
    const res = await post(envelope(3, 'tools/call', { name: 'echo', arguments: { text: 'hello' } }), 'echo');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.result.content, [{ type: 'text', text: 'hello' }]);
  });

  test(`${label}: a 2025-era client: initialize, then tools/call, with no session`, async () => {
    const legacy = (body) =>
      request(app.getHttpServer()).post('/mcp').set('content-type', 'application/json').set('accept', 'application/json, text/event-stream').send(JSON.stringify(body));
    const init = await legacy({ jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'compat', version: '1' } } });
    assert.equal(init.status, 200);
    assert.equal(init.body.result.protocolVersion, '2025-06-18');
    assert.equal(init.headers['mcp-session-id'], undefined);
    const call = await legacy({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
    assert.deepEqual(call.body.result, { content: [{ type: 'text', text: 'hi' }] });
  });

  test(`${label}: the nestjs-mcp/testing entry point loads and calls a tool`, async () => {
    const mcp = testing.createMcpTestClient(app);
    const { status, result } = await mcp.callTool('echo', { text: 'from the kit' });
    assert.equal(status, 200);
    assert.deepEqual(result.content, [{ type: 'text', text: 'from the kit' }]);
  });

  test(`${label}: the nestjs-mcp/express entry point's adapter serves a tool call`, async () => {
    const fast = await NestFactory.create(AppModule, new expressEntry.PrototypeExpressAdapter(), { logger: false });
    await fast.init();
    try {
      const mcp = testing.createMcpTestClient(fast);
      const { status, result } = await mcp.callTool('echo', { text: 'through the prototype adapter' });
      assert.equal(status, 200);
      assert.deepEqual(result.content, [{ type: 'text', text: 'through the prototype adapter' }]);
    } finally {
      await fast.close();
    }
  });
}

module.exports = { defineSmokeTests };
