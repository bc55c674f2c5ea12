import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { McpHttpDriver } from '../../src/core/index.js';
import { MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';
import { callAnswering, legacyPost, legacyRequest } from '../support/legacy-client.js';
import { closeListening, listenOnLoopback } from '../support/sse-client.js';

const OBJECT = { type: 'object' } as const;
const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
// Small enough that a big elicitation message does not fit in one SSE frame; big enough for every answer here.
const MAX_MESSAGE_BYTES = 16 * 1024;

function register(server: MCPServer): void {
  server.addTool({
    name: 'what_can_you_do',
    description: 'Reports what it knows of the client',
    inputSchema: OBJECT,
    handler: (_args, _answers, ctx: McpContext) =>
      JSON.stringify({ capabilities: ctx.clientCapabilities ?? 'unknown', elicitation: ctx.supports('elicitation') }),
  });
  server.addTool({
    name: 'greet_politely',
    description: 'Asks for a name when the client can be asked, else greets a stranger',
    inputSchema: OBJECT,
    handler: async (_args, _answers, ctx: McpContext) => {
      if (!ctx.supports('elicitation')) return 'Hello, stranger';
      const answer = await ctx.elicit('Your name?', NAME_FORM, { key: 'name' });
      return answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}` : 'Hello, stranger';
    },
  });
  server.addTool({
    name: 'ask_at_length',
    description: 'Elicits with a message larger than one message on the stream may be',
    inputSchema: OBJECT,
    handler: async (_args, _answers, ctx: McpContext) => {
      const answer = await ctx.elicit('x'.repeat(MAX_MESSAGE_BYTES * 2), NAME_FORM);
      return `answered ${answer.action}`;
    },
  });
}

describe('2025-era clients: unknown capabilities and requests the stream cannot carry', () => {
  let app: INestApplication;
  let url: string;
  let driver: McpHttpDriver;

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({
        name: 'input',
        version: '1.0.0',
        http: { maxResponseBytes: MAX_MESSAGE_BYTES },
        legacy: {
          // Far beyond any test's time: a call that waited for its reply would fail the test by its own timeout.
          replyTimeoutMs: 600_000,
        },
      }),
    ]);
    register(app.get(MCPServer));
    driver = app.get(McpHttpDriver);
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));
  afterEach(() => expect(driver.legacy?.waiting).toBe(0));

  it('tells handlers the capabilities are unknown on the 2025 leg, not that there are none', async () => {
    const res = await legacyPost(app, legacyRequest('tools/call', { name: 'what_can_you_do', arguments: {} }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.result.content[0].text)).toEqual({ capabilities: 'unknown', elicitation: true });
  });

  it('tells them what a 2026-07-28 client declared, none included', async () => {
    for (const [declared, elicitation] of [
      [{}, false],
      [{ elicitation: { form: {} } }, true],
    ] as const) {
      const body = mcpMessage(
        'tools/call',
        { name: 'what_can_you_do', arguments: {} },
        { clientCapabilities: declared },
      );
      const res = await request(app.getHttpServer()).post('/mcp').set(mcpHeaders(body)).send(body).expect(200);
      expect(JSON.parse(res.body.result.content[0].text)).toEqual({ capabilities: declared, elicitation });
    }
  });

  it('asks a 2025 client that a handler checks first, since it may well answer', async () => {
    const call = await callAnswering(
      url,
      legacyRequest('tools/call', { name: 'greet_politely', arguments: {} }),
      () => ({ result: { action: 'accept', content: { name: 'Ada' } } }),
    );
    expect(call.requests.map((r) => r.method)).toEqual(['elicitation/create']);
    expect(call.response.result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada' }] });
  });

  it('asks no 2025 client that declared its capabilities in the request and left elicitation out', async () => {
    // A 2025-era request (no protocol-version claim) may still carry the client-capabilities key of `_meta`:
    // then the server knows, and a handler that asks anyway ends at once, with nothing sent to the client.
    const meta = { _meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } } };
    const checked = await legacyPost(
      app,
      legacyRequest('tools/call', { name: 'greet_politely', arguments: {}, ...meta }),
    );
    expect(checked.body.result).toEqual({ content: [{ type: 'text', text: 'Hello, stranger' }] });
    const res = await legacyPost(
      app,
      legacyRequest('tools/call', { name: 'ask_at_length', arguments: {}, ...meta }, 'x'),
    );
    // As in a session that declared no elicitation, and in 2026-07-28: -32021, in-band on the 2025 leg, plain JSON.
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: {
        code: -32021,
        message: 'Server requires the elicitation client capability for this request',
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      },
    });
  });

  it('ends at once, with a clear tool error, a call whose request to the client is too large to send', async () => {
    const res = await legacyPost(app, legacyRequest('tools/call', { name: 'ask_at_length', arguments: {} }, 'big'));
    expect(res.status).toBe(200);
    // Nothing was written to a stream: the answer is plain JSON, and the client was never asked.
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 'big',
      result: {
        isError: true,
        content: [
          {
            type: 'text',
            text: "Error: elicitation/create could not be sent to the client (larger than the transport's message limit, or the stream closed)",
          },
        ],
      },
    });
  });
});
