import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { McpKernel } from '../../src/core/index.js';

const LISTS = [
  { method: 'tools/list', key: 'tools', id: (item: Record<string, unknown>) => item.name },
  { method: 'prompts/list', key: 'prompts', id: (item: Record<string, unknown>) => item.name },
  { method: 'resources/list', key: 'resources', id: (item: Record<string, unknown>) => item.uri },
  {
    method: 'resources/templates/list',
    key: 'resourceTemplates',
    id: (item: Record<string, unknown>) => item.uriTemplate,
  },
] as const;

async function walk(app: INestApplication, method: string, key: string): Promise<Array<Record<string, unknown>>> {
  const pages: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  do {
    const res = await createMcpTestClient(app).post(mcpMessage(method, cursor === undefined ? {} : { cursor }));
    expect(res.status).toBe(200);
    pages.push(res.body.result);
    cursor = res.body.result.nextCursor;
    expect(res.body.result[key].length).toBeLessThanOrEqual(2);
  } while (cursor !== undefined);
  return pages;
}

describe('pagination and caching hints', () => {
  let app: INestApplication;
  let server: MCPServer;

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({
        name: 'paged',
        version: '1.0.0',
        limits: { pageSize: 2 },
        lists: {
          cache: {
            lists: { ttlMs: 5000, cacheScope: 'private' },
            discover: { ttlMs: 0, cacheScope: 'private' },
            resources: { ttlMs: 1000 },
          },
        },
      }),
    ]);
    server = app.get(MCPServer);
    for (let i = 0; i < 5; i++) {
      server.addTool({
        name: `tool_${i}`,
        description: `Tool ${i}`,
        inputSchema: { type: 'object' },
        handler: () => i,
      });
      server.addPrompt({ name: `prompt_${i}`, description: `Prompt ${i}`, handler: () => `p${i}` });
      server.addResource({ uri: `res://${i}`, name: `res ${i}`, handler: () => `r${i}` });
      server.addResourceTemplate({ uriTemplate: `tpl${i}://{x}`, name: `tpl ${i}`, handler: (_u, { x }) => x });
    }
    server.addResource({
      uri: 'res://hot',
      name: 'hot',
      cache: { ttlMs: 0, cacheScope: 'public' },
      handler: () => 'hot',
    });
  });
  afterAll(() => app.close());

  it.each(LISTS)(
    'walks $method page by page with opaque cursors, every item exactly once',
    async ({ method, key, id }) => {
      const pages = await walk(app, method, key);
      const ids = pages.flatMap((page) => (page[key] as Array<Record<string, unknown>>).map(id));
      expect(ids.length).toBe(method === 'resources/list' ? 6 : 5);
      expect(new Set(ids).size).toBe(ids.length);
      expect(pages.length).toBe(3);
      for (const page of pages.slice(0, -1)) expect(page.nextCursor).toEqual(expect.any(String));
    },
  );

  it.each(LISTS)('puts the same configured caching hints on every page of $method', async ({ method, key }) => {
    const pages = await walk(app, method, key);
    for (const page of pages) expect(page).toMatchObject({ ttlMs: 5000, cacheScope: 'private' });
  });

  it('gives the same cursor for the same page (stable cursors)', async () => {
    const a = await createMcpTestClient(app).post(mcpMessage('tools/list'));
    expect(a.status).toBe(200);
    const b = await createMcpTestClient(app).post(mcpMessage('tools/list'));
    expect(b.status).toBe(200);
    expect(a.body.result.nextCursor).toBe(b.body.result.nextCursor);
  });

  it.each(LISTS)('answers an invalid cursor on $method with -32602', async ({ method }) => {
    for (const cursor of ['not-a-cursor', '', 42]) {
      const res = await createMcpTestClient(app).post(mcpMessage(method, { cursor }));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32602);
    }
  });

  it('rejects a cursor of one list on another', async () => {
    const tools = await createMcpTestClient(app).post(mcpMessage('tools/list'));
    expect(tools.status).toBe(200);
    const res = await createMcpTestClient(app).post(
      mcpMessage('prompts/list', { cursor: tools.body.result.nextCursor }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32602);
  });

  it('rejects a cursor once the list has changed instead of skipping or repeating items', async () => {
    const first = await createMcpTestClient(app).post(mcpMessage('prompts/list'));
    expect(first.status).toBe(200);
    server.addPrompt({ name: 'prompt_late', description: 'Added between pages', handler: () => 'late' });
    try {
      const res = await createMcpTestClient(app).post(
        mcpMessage('prompts/list', { cursor: first.body.result.nextCursor }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32602);
    } finally {
      server.removePrompt('prompt_late');
    }
  });

  it('uses the configured hints on discover and resource reads, and a resource may override them', async () => {
    const discover = await createMcpTestClient(app).post(mcpMessage('server/discover'));
    expect(discover.status).toBe(200);
    expect(discover.body.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const read = await createMcpTestClient(app).post(mcpMessage('resources/read', { uri: 'res://1' }));
    expect(read.status).toBe(200);
    expect(read.body.result).toMatchObject({ ttlMs: 1000, cacheScope: 'private' });
    const hot = await createMcpTestClient(app).post(mcpMessage('resources/read', { uri: 'res://hot' }));
    expect(hot.status).toBe(200);
    expect(hot.body.result).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
  });

  it('puts no caching hints on tool results', async () => {
    const res = await createMcpTestClient(app).post(mcpMessage('tools/call', { name: 'tool_1', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.body.result.ttlMs).toBeUndefined();
    expect(res.body.result.cacheScope).toBeUndefined();
  });

  it('refuses invalid caching options at start-up', () => {
    expect(() => new McpKernel({ name: 'x', version: '1', lists: { cache: { lists: { ttlMs: -1 } } } })).toThrow(
      /ttlMs/,
    );
    expect(
      () =>
        new McpKernel({ name: 'x', version: '1', lists: { cache: { lists: { cacheScope: 'shared' as 'public' } } } }),
    ).toThrow(/cacheScope/);
    expect(() => new McpKernel({ name: 'x', version: '1', limits: { pageSize: 0 } })).toThrow(/pageSize/);
  });
});
