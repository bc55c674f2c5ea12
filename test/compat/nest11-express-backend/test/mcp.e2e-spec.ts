import { INestApplication } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import request from 'supertest';
import { JWT_SECRET, MCP_RESOURCE } from '../src/auth';
import { json, login, mcpClient, MCP_PATH, startBackend, TIMEOUT } from './backend';

/** Parameters of a `WWW-Authenticate: Bearer` challenge. */
function challenge(header: string | undefined): Record<string, string> {
  return Object.fromEntries([...(header ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
}

describe('nestjs-mcp inside a Nest 11 Express backend', () => {
  let app: INestApplication;
  let token: string;

  beforeAll(async () => {
    app = await startBackend();
    token = await login(app);
  }, TIMEOUT);
  afterAll(() => app?.close());

  it(
    "keeps the app's REST rules: the ValidationPipe refuses an extra field, helmet sets its headers",
    async () => {
      const res = await request(app.getHttpServer())
        .post('/api/v1/orders')
        .set('authorization', `Bearer ${token}`)
        .send({ customer: 'Ada', item: 'tea', quantity: 1, status: 'shipped' });
      expect(res.status).toBe(400);
      // The docs' catch-all filter answers with the status and path only.
      expect(res.body).toMatchObject({ statusCode: 400, path: '/api/v1/orders' });
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    },
    TIMEOUT,
  );

  it(
    "answers the global passport guard's refusals with the MCP challenge: no token, garbage, expired",
    async () => {
      const anonymous = await mcpClient(app).listTools();
      expect(anonymous.status).toBe(401);
      const noToken = await mcpClient(app).post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(challenge(noToken.headers['www-authenticate'])).toEqual({
        resource_metadata: 'https://orders.example.com/.well-known/oauth-protected-resource/api/mcp',
      });
      const garbage = await mcpClient(app, 'garbage').post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(garbage.status).toBe(401);
      expect(challenge(garbage.headers['www-authenticate'])).toMatchObject({
        error: 'invalid_token',
        error_description: 'The access token is invalid',
      });
      const now = Math.floor(Date.now() / 1000);
      const stale = new JwtService({ secret: JWT_SECRET }).sign({
        sub: 'ada',
        aud: MCP_RESOURCE,
        iat: now - 120,
        exp: now - 60,
      });
      const expired = await mcpClient(app, stale).post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(expired.status).toBe(401);
      expect(challenge(expired.headers['www-authenticate'])).toMatchObject({
        error: 'invalid_token',
        error_description: 'The access token expired',
      });
    },
    TIMEOUT,
  );

  it(
    "with the app's own token, lists the tools and places an order that lands in PostgreSQL",
    async () => {
      const mcp = mcpClient(app, token);
      const list = await mcp.listTools();
      expect(list.status).toBe(200);
      expect(list.result!.tools.map((tool) => tool.name)).toEqual(['create_order', 'get_order', 'whoami', 'quote']);
      expect(list.result!.tools[0].inputSchema).not.toHaveProperty('$schema');
      const created = await mcp.callTool('create_order', { customer: 'Ada', item: 'tea', quantity: 2 });
      expect(created.result!.isError).toBeFalsy();
      const order = json(created.result);
      expect(order).toMatchObject({ customer: 'Ada', item: 'tea', quantity: 2, status: 'pending' });
      const stored = await request(app.getHttpServer())
        .get(`/api/v1/orders/${order.id}`)
        .set('authorization', `Bearer ${token}`)
        .expect(200);
      expect(stored.body).toEqual(order);
    },
    TIMEOUT,
  );

  it(
    "hands the passport guard's request.user to the tool",
    async () => {
      const whoami = await mcpClient(app, token).callTool('whoami');
      expect(json(whoami.result)).toEqual({ user: { userId: 'ada', username: 'ada' } });
    },
    TIMEOUT,
  );

  it(
    'publishes the protected-resource metadata without authorization servers: the app issues its own tokens',
    async () => {
      const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/api/mcp').expect(200);
      expect(res.body).toEqual({ resource: MCP_RESOURCE, bearer_methods_supported: ['header'] });
      expect(MCP_PATH).toBe(new URL(MCP_RESOURCE).pathname);
    },
    TIMEOUT,
  );
});
