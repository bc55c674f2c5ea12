import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

describe('McpModule over HTTP (smoke)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'smoke', version: '0.0.1' })]);
    app
      .get(MCPServer)
      .registerTool(
        'echo',
        'Echoes text',
        { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        (a: { text: string }) => a.text,
      );
  });
  afterAll(() => app.close());

  it('answers server/discover', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('server/discover'));
    expect(res.status).toBe(200);
    expect(res.body.result.supportedVersions).toEqual(['2026-07-28']);
  });

  it('calls a registered tool', async () => {
    const res = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'hi' }]);
  });
});
