// The behaviours the app's Fastify-style HttpException filter and stdio need from nestjs-mcp: the real error
// through the filter, a template's NotFoundException as the protocol's resource-not-found error, and the same
// AppModule over stdio.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { login, mcpClient, startBackend, text, TIMEOUT } from './backend';

describe("nestjs-mcp and the Fastify backend's enhancers", () => {
  let app: NestFastifyApplication;
  let cookie: string;

  beforeAll(async () => {
    app = await startBackend();
    cookie = await login(app);
  }, TIMEOUT);
  afterAll(() => app?.close());

  it(
    "shows the tool's ForbiddenException through the reply.status().send() filter, not a TypeError",
    async () => {
      const denied = await mcpClient(app, cookie).callTool('delete_note', { id: 'n1' });
      expect(denied.result!.isError).toBe(true);
      expect(text(denied.result)).not.toContain('is not a function');
      expect(text(denied.result)).toContain('Only admins may delete note n1');
    },
    TIMEOUT,
  );

  it(
    'runs the guard given through http.routeDecorators on the endpoint, with the metadata given beside it',
    async () => {
      const closed = await request(app.getHttpServer())
        .post('/mcp')
        .set({ cookie, 'x-tenant-id': 'acme', 'x-gate': 'closed', 'content-type': 'application/json' })
        .set('accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      expect(closed.status).toBe(403);
      expect(JSON.stringify(closed.body)).toContain('The mcp gate is closed');
      const open = await mcpClient(app, cookie).listTools();
      expect(open.result!.tools.length).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "answers a template's NotFoundException with the resource-not-found error",
    async () => {
      const missing = await mcpClient(app, cookie).readResource('notes://nowhere');
      // 2026-07-28 answers an unknown resource with invalid params naming the URI.
      expect(missing.error).toMatchObject({
        code: -32602,
        message: 'Resource not found: notes://nowhere',
        data: { uri: 'notes://nowhere' },
      });
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
      'lists the tools and calls one, with the session guard and the filter in place',
      async () => {
        const client = new Client({ name: 'compat-stdio', version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({ command: process.execPath, args: [join('dist', 'stdio.js')], stderr: 'inherit' }),
        );
        try {
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name)).toEqual(['whoami', 'tenant_count', 'delete_note']);
          const denied = await client.callTool({ name: 'delete_note', arguments: { id: 'n2' } });
          expect(denied.isError).toBe(true);
          expect(JSON.stringify(denied.content)).toContain('Only admins may delete note n2');
        } finally {
          await client.close();
        }
      },
      TIMEOUT,
    );
  });
});
