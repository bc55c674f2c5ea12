import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Content, MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';

const BYTES = Uint8Array.from([0, 1, 2, 250, 255]);

describe('content helpers in tool results', () => {
  let app: INestApplication;
  let mcp: McpTestClient;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'content', version: '1.0.0' })]);
    mcp = createMcpTestClient(app);
    const server = app.get(MCPServer);
    const noArgs = { type: 'object' };
    server.addTool({
      name: 'all_blocks',
      description: 'Returns one block of every kind',
      inputSchema: noArgs,
      handler: () => [
        Content.text('hello', {
          annotations: { audience: ['user'], priority: 0.5 },
          _meta: { 'example.com/trace': 'abc' },
        }),
        Content.image(BYTES, 'image/png'),
        Content.audio('UklGRg==', 'audio/wav', { annotations: { lastModified: '2026-07-28T00:00:00Z' } }),
        Content.textResource('docs://a', 'A text', 'text/markdown'),
        Content.blobResource('bin://b', BYTES, 'application/octet-stream', { annotations: { priority: 1 } }),
        Content.resourceLink({ uri: 'docs://c', name: 'c', mimeType: 'text/plain', description: 'A link' }),
      ],
    });
    server.addTool({
      name: 'one_block',
      description: 'Returns a single block',
      inputSchema: noArgs,
      handler: () => Content.text('single'),
    });
    server.addTool({
      name: 'plain_value',
      description: 'Returns a plain object',
      inputSchema: noArgs,
      handler: () => ({ answer: 42 }),
    });
  });
  afterAll(() => app.close());

  it('serializes every kind of content block, with annotations and _meta, without hand-written JSON', async () => {
    const res = await mcp.post(mcpMessage('tools/call', { name: 'all_blocks', arguments: {} }));
    expect(res.status).toBe(200);
    const b64 = Buffer.from(BYTES).toString('base64');
    expect(res.body.result.content).toEqual([
      {
        type: 'text',
        text: 'hello',
        annotations: { audience: ['user'], priority: 0.5 },
        _meta: { 'example.com/trace': 'abc' },
      },
      { type: 'image', data: b64, mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav', annotations: { lastModified: '2026-07-28T00:00:00Z' } },
      { type: 'resource', resource: { uri: 'docs://a', mimeType: 'text/markdown', text: 'A text' } },
      {
        type: 'resource',
        resource: { uri: 'bin://b', mimeType: 'application/octet-stream', blob: b64 },
        annotations: { priority: 1 },
      },
      { type: 'resource_link', uri: 'docs://c', name: 'c', mimeType: 'text/plain', description: 'A link' },
    ]);
    expect(res.body.result.resultType).toBe('complete');
  });

  it('wraps a single block in the content array', async () => {
    const res = await mcp.post(mcpMessage('tools/call', { name: 'one_block', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'single' }]);
  });

  it('renders a plain value as JSON text', async () => {
    const res = await mcp.post(mcpMessage('tools/call', { name: 'plain_value', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: '{"answer":42}' }]);
  });
});
