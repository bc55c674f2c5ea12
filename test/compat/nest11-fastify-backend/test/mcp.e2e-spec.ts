import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { login, mcpClient, startBackend, text, TIMEOUT } from './backend';

describe('nestjs-mcp inside a Nest 11 Fastify backend', () => {
  let app: NestFastifyApplication;
  let cookie: string;

  beforeAll(async () => {
    app = await startBackend();
    cookie = await login(app);
  }, TIMEOUT);
  afterAll(() => app?.close());

  it(
    "keeps the app's routes as they were: helmet's headers, the session cookie, the guard's own 401",
    async () => {
      const hello = await request(app.getHttpServer()).get('/').expect(200);
      expect(hello.text).toBe('Hello World!');
      expect(hello.headers['x-content-type-options']).toBe('nosniff');
      expect(cookie).toMatch(/^session=ada\./);
    },
    TIMEOUT,
  );

  it(
    "answers the session guard's refusal on the MCP route with the MCP 401 challenge",
    async () => {
      const refused = await mcpClient(app).post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe(-31401);
      expect(refused.headers['www-authenticate']).toBe(
        'Bearer resource_metadata="https://notes.example.com/.well-known/oauth-protected-resource/mcp"',
      );
    },
    TIMEOUT,
  );

  it(
    'with the session cookie, lists the tools and hands the guard’s request.user to a tool',
    async () => {
      const mcp = mcpClient(app, cookie);
      const list = await mcp.listTools();
      expect(list.status).toBe(200);
      expect(list.result!.tools.map((tool) => tool.name)).toEqual(['whoami', 'tenant_count', 'delete_note']);
      const whoami = await mcp.callTool('whoami');
      expect(JSON.parse(text(whoami.result))).toEqual({ user: { username: 'ada' } });
    },
    TIMEOUT,
  );

  it(
    'serves each tenant from its own durable provider',
    async () => {
      const acme = mcpClient(app, cookie, 'acme');
      const globex = mcpClient(app, cookie, 'globex');
      expect(text((await acme.callTool('tenant_count')).result)).toBe('acme:1');
      expect(text((await acme.callTool('tenant_count')).result)).toBe('acme:2');
      expect(text((await globex.callTool('tenant_count')).result)).toBe('globex:1');
      expect(text((await acme.callTool('tenant_count')).result)).toBe('acme:3');
    },
    TIMEOUT,
  );

  it(
    'reads a resource from a template',
    async () => {
      const read = await mcpClient(app, cookie).readResource('notes://welcome');
      expect(read.result!.contents).toEqual([{ uri: 'notes://welcome', mimeType: 'text/plain', text: 'Welcome!' }]);
    },
    TIMEOUT,
  );
});
