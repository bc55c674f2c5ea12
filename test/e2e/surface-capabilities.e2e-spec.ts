import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';

describe('capabilities follow what is registered', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let server: MCPServer;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'tools-only', version: '1.0.0' })]);
    mcp = createMcpTestClient(app);
    server = app.get(MCPServer);
    server.addTool({ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' }, handler: () => 'echo' });
  });
  afterAll(() => app.close());

  const capabilities = async () => {
    const res = await mcp.post(mcpMessage('server/discover'));
    expect(res.status).toBe(200);
    return res.body.result.capabilities;
  };

  it('advertises tools and nothing that is not registered', async () => {
    const caps = await capabilities();
    expect(caps.tools).toEqual({ listChanged: true });
    expect(caps.prompts).toBeUndefined();
    expect(caps.resources).toBeUndefined();
    expect(caps.completions).toBeUndefined();
  });

  it.each([
    ['prompts/list', {}],
    ['prompts/get', { name: 'x' }],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['resources/read', { uri: 'a://b' }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } }],
  ])('answers %s with -32601 / 404 when nothing backs it', async (method, params) => {
    const res = await mcp.post(mcpMessage(method, params, { id: 9 }));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32601 } });
  });

  it('advertises prompts once one is registered, and drops them again when it is removed', async () => {
    server.addPrompt({ name: 'p', description: 'A prompt', handler: () => 'p' });
    try {
      expect((await capabilities()).prompts).toEqual({ listChanged: true });
      expect((await mcp.post(mcpMessage('prompts/list'))).status).toBe(200);
    } finally {
      server.removePrompt('p');
    }
    expect((await capabilities()).prompts).toBeUndefined();
    expect((await mcp.post(mcpMessage('prompts/list'))).status).toBe(404);
  });

  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'no/such/method'])(
    'answers the removed or unknown method %s with -32601 / 404',
    async (method) => {
      const res = await mcp.post(
        mcpMessage(method, method === 'resources/subscribe' ? { uri: 'a://b' } : {}, { id: 'm' }),
      );
      expect(res.status).toBe(404);
      expect(res.body.id).toBe('m');
      expect(res.body.error.code).toBe(-32601);
    },
  );
});
