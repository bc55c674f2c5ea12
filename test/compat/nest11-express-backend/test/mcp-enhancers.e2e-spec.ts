// The behaviours the app's own enhancers, versioning and stdio need from nestjs-mcp: schema semantics, the
// docs' catch-all filter on tool errors, the endpoint's body handling under URI versioning, the throttler per
// tool, and the same AppModule over stdio.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { INestApplication } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { login, mcpClient, MCP_PATH, startBackend, TIMEOUT } from './backend';

describe("nestjs-mcp and the Express backend's enhancers", () => {
  let app: INestApplication;
  let token: string;

  beforeAll(async () => {
    app = await startBackend();
    token = await login(app, 'grace');
  }, TIMEOUT);
  afterAll(() => app?.close());

  it(
    'hands create_order what its zod schema parses: unknown keys (id, status) never reach PostgreSQL',
    async () => {
      const forged = '00000000-0000-4000-8000-000000000000';
      const created = await mcpClient(app, token).callTool('create_order', {
        customer: 'Grace',
        item: 'coffee',
        quantity: 1,
        id: forged,
        status: 'shipped',
      });
      expect(created.result!.isError).toBeFalsy();
      const [row] = await app
        .get(DataSource)
        .query('SELECT id, status FROM compat_express_backend_orders WHERE customer = $1', ['Grace']);
      expect(row.status).toBe('pending');
      expect(row.id).not.toBe(forged);
    },
    TIMEOUT,
  );

  it(
    "shows the tool's NotFoundException through the docs' catch-all filter, not a TypeError",
    async () => {
      const missing = await mcpClient(app, token).callTool('get_order', { id: '00000000-0000-4000-8000-000000000001' });
      expect(missing.result!.isError).toBe(true);
      const text = missing.result!.content.map((block) => (block as { text?: string }).text).join(' ');
      expect(text).not.toContain('is not a function');
      expect(text).toMatch(/404|not found/i);
    },
    TIMEOUT,
  );

  it(
    "keeps the endpoint's own body handling under URI versioning: -32700 for bad JSON, a 200 KB argument accepted",
    async () => {
      const bad = await request(app.getHttpServer())
        .post(MCP_PATH)
        .set('authorization', `Bearer ${token}`)
        .set('content-type', 'application/json')
        .set('accept', 'application/json, text/event-stream')
        .send('{"jsonrpc":');
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe(-32700);
      const big = await mcpClient(app, token).callTool('create_order', {
        customer: 'Big',
        item: 'x'.repeat(200_000),
        quantity: 1,
      });
      expect(big.status).toBe(200);
      expect(big.result!.isError).toBeFalsy();
    },
    TIMEOUT,
  );

  it(
    'counts @Throttle({ default: { limit: 2 } }) on quote per tool: calls of other tools do not use it up',
    async () => {
      const mcp = mcpClient(app, await login(app, 'hopper'));
      await mcp.callTool('whoami');
      await mcp.callTool('whoami');
      const first = await mcp.callTool('quote', { item: 'tea' });
      const second = await mcp.callTool('quote', { item: 'tea' });
      const third = await mcp.callTool('quote', { item: 'tea' });
      expect(first.result?.content).toEqual([{ type: 'text', text: 'tea: 9.99' }]);
      expect(second.result?.content).toEqual([{ type: 'text', text: 'tea: 9.99' }]);
      expect(third.result?.isError).toBe(true);
      expect(JSON.stringify(third.result?.content)).toContain('Too Many Requests');
    },
    TIMEOUT,
  );

  describe('over stdio, the real AppModule', () => {
    beforeAll(() => {
      execFileSync(process.execPath, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
        stdio: 'inherit',
      });
    }, 120_000);

    it(
      'lists the tools and places an order, with the global guards and filter in place',
      async () => {
        const client = new Client({ name: 'compat-stdio', version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({ command: process.execPath, args: [join('dist', 'stdio.js')], stderr: 'inherit' }),
        );
        try {
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name)).toEqual(['create_order', 'get_order', 'whoami', 'quote']);
          const created = await client.callTool({
            name: 'create_order',
            arguments: { customer: 'Stdio', item: 'tea', quantity: 3 },
          });
          expect(created.isError).toBeFalsy();
          expect(JSON.parse((created.content as Array<{ text: string }>)[0].text)).toMatchObject({
            customer: 'Stdio',
            status: 'pending',
          });
        } finally {
          await client.close();
        }
      },
      TIMEOUT,
    );
  });
});
