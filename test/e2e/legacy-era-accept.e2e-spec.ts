import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { MCPServer, McpModule } from '../../src/index.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { legacyPost, legacyRequest } from '../support/legacy-client.js';

const NOT_ACCEPTABLE = 'Not Acceptable: the Accept header must list both application/json and text/event-stream';

describe.each(HTTP_ADAPTERS)('Accept on the 2025-era leg (%s)', (adapter) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'accept', version: '1.0.0' })], [], adapter);
    app.get(MCPServer).registerTool('greet', 'Greets', { type: 'object' }, () => 'Hello!');
  });
  afterAll(() => app.close());

  // 2025-11-25 transports: "The client MUST include an Accept header, listing both application/json and
  // text/event-stream": the answer may turn into a stream once the call notifies or asks the client something.
  it.each([
    ['application/json only', 'application/json'],
    ['text/event-stream only', 'text/event-stream'],
    ['SSE refused with q=0', 'application/json, text/event-stream;q=0'],
    ['a wildcard overruled by q=0 on JSON', '*/*, application/json;q=0'],
    ['an unrelated type', 'text/html'],
  ])('refuses a request whose Accept lists %s: 406 -32000 with its id', async (_case, accept) => {
    const res = await legacyPost(app, legacyRequest('tools/list', {}, 'a1'), { accept }).expect(406);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 'a1', error: { code: -32000, message: NOT_ACCEPTABLE } });
  });

  it('refuses a request without an Accept header the same way', async () => {
    const res = await legacyPost(app, legacyRequest('initialize', { protocolVersion: '2025-11-25' }, 'a2'), {
      accept: undefined,
    });
    expect(res.status).toBe(406);
    expect(res.body.error).toEqual({ code: -32000, message: NOT_ACCEPTABLE });
  });

  it.each([
    ['both, in either order', 'text/event-stream, application/json'],
    ['*/*', '*/*'],
    ['type wildcards', 'application/*, text/*'],
    ['weights above zero', 'application/json;q=0.5, text/event-stream;q=0.1'],
  ])('serves a request whose Accept lists %s', async (_case, accept) => {
    const res = await legacyPost(app, legacyRequest('tools/list', {}, 'b1'), { accept }).expect(200);
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['greet']);
  });

  it('acknowledges a notification whatever Accept says (a 202 has no body to negotiate)', async () => {
    await legacyPost(app, { jsonrpc: '2.0', method: 'notifications/initialized' }, { accept: 'text/html' }).expect(202);
  });

  it('leaves the 2026-07-28 path as it was: a JSON answer whatever Accept says', async () => {
    const body = mcpMessage('tools/list', {}, { id: 'm1' });
    const res = await request(app.getHttpServer())
      .post('/mcp')
      .set({ ...mcpHeaders(body), accept: 'application/json' })
      .send(body)
      .expect(200);
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['greet']);
  });
});
