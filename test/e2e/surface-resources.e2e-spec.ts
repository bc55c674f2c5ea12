import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

describe('resources over HTTP', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  const seen: Array<Record<string, string>> = [];

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'resources', version: '1.0.0' })]);
    mcp = createMcpTestClient(app);
    const server = app.get(MCPServer);
    server.addResource({
      uri: 'docs://readme',
      name: 'readme',
      description: 'The readme',
      mimeType: 'text/markdown',
      handler: () => '# Hello',
    });
    server.addResource({ uri: 'img://logo', name: 'logo', mimeType: 'image/png', handler: () => PNG });
    server.addResourceTemplate({
      uriTemplate: 'users://{org}/{id}/profile',
      name: 'profile',
      mimeType: 'application/json',
      handler: (uri, variables) => {
        seen.push(variables);
        return JSON.stringify({ uri, ...variables });
      },
    });
  });
  afterAll(() => app.close());

  it('lists static resources and templates with what was declared', async () => {
    const list = await mcp.post(mcpMessage('resources/list'));
    expect(list.status).toBe(200);
    expect(list.body.result.resources).toEqual([
      { uri: 'docs://readme', name: 'readme', description: 'The readme', mimeType: 'text/markdown' },
      { uri: 'img://logo', name: 'logo', mimeType: 'image/png' },
    ]);
    const templates = await mcp.post(mcpMessage('resources/templates/list'));
    expect(templates.status).toBe(200);
    expect(templates.body.result.resourceTemplates).toEqual([
      { uriTemplate: 'users://{org}/{id}/profile', name: 'profile', mimeType: 'application/json' },
    ]);
  });

  it('reads a text resource with its MIME type', async () => {
    const res = await mcp.post(mcpMessage('resources/read', { uri: 'docs://readme' }));
    expect(res.status).toBe(200);
    expect(res.body.result.contents).toEqual([{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hello' }]);
    expect(res.body.result.resultType).toBe('complete');
  });

  it('reads bytes as a base64 blob', async () => {
    const res = await mcp.post(mcpMessage('resources/read', { uri: 'img://logo' }));
    expect(res.status).toBe(200);
    const [contents] = res.body.result.contents;
    expect(contents).toEqual({ uri: 'img://logo', mimeType: 'image/png', blob: PNG.toString('base64') });
    expect(contents.text).toBeUndefined();
  });

  it('matches a template and hands its variables to the handler', async () => {
    const res = await mcp.post(mcpMessage('resources/read', { uri: 'users://acme/42/profile' }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.result.contents[0].text)).toEqual({
      uri: 'users://acme/42/profile',
      org: 'acme',
      id: '42',
    });
    expect(seen.at(-1)).toEqual({ org: 'acme', id: '42' });
  });

  it('answers an unknown URI with -32602 and data.uri, never empty contents', async () => {
    const uri = 'users://acme/42/settings';
    const res = await mcp.post(mcpMessage('resources/read', { uri }, { id: 'nf' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 'nf',
      error: { code: -32602, message: `Resource not found: ${uri}`, data: { uri } },
    });
  });

  it('rejects a read without a string uri as invalid params', async () => {
    const res = await mcp.post(mcpMessage('resources/read', { uri: 7 }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32602);
  });
});
