import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { McpConfigurationError, McpModule, type McpModuleOptions } from '../../src/index.js';
import { ISSUER, RESOURCE } from '../support/auth-tokens.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

const CARD_TYPE = 'application/mcp-server-card+json';
const info = { title: 'Weather', description: 'Forecasts by city', websiteUrl: 'https://weather.example.com' };

describe.each(HTTP_ADAPTERS)('The Server Card and the catalog on %s', (adapter) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp(
      [
        McpModule.forRoot({ name: 'com.example/weather', version: '2.1.0', info, http: { catalog: true } }),
        McpModule.forRoot({
          name: 'com.example/billing',
          version: '1.0.0',
          path: '/billing/mcp',
          isDefault: false,
          http: { catalog: true, serverCard: { url: 'https://api.example.com/billing/mcp' } },
        }),
        McpModule.forRoot({
          name: 'internal',
          version: '0.1.0',
          path: '/internal/mcp',
          isDefault: false,
          http: { serverCard: false },
        }),
      ],
      [],
      adapter,
    );
  });
  afterAll(() => app.close());

  it('serves the card at <endpoint>/server-card: media type, CORS *, cached, agreeing with server/discover', async () => {
    const res = await request(app.getHttpServer()).get('/mcp/server-card').set('host', '127.0.0.1:3000');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(CARD_TYPE);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    const card = JSON.parse(res.text);
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'com.example/weather',
      version: '2.1.0',
      ...info,
      remotes: [{ type: 'streamable-http', url: 'http://127.0.0.1:3000/mcp' }],
    });
    expect(card.tools).toBeUndefined();
    const discover = await createMcpTestClient(app).post(mcpMessage('server/discover'));
    const serverInfo = discover.body.result._meta['io.modelcontextprotocol/serverInfo'];
    expect({ name: card.name, version: card.version, title: card.title }).toEqual({
      name: serverInfo.name,
      version: serverInfo.version,
      title: serverInfo.title,
    });
  });

  it('gives each named server its own card, with the public URL it was given', async () => {
    const res = await request(app.getHttpServer()).get('/billing/mcp/server-card');
    expect(JSON.parse(res.text)).toMatchObject({
      name: 'com.example/billing',
      remotes: [{ type: 'streamable-http', url: 'https://api.example.com/billing/mcp' }],
    });
    expect((await request(app.getHttpServer()).get('/internal/mcp/server-card')).status).toBe(404);
  });

  it('lists the servers that opted in, in the site catalog, each by its card', async () => {
    const res = await request(app.getHttpServer()).get('/.well-known/mcp/catalog.json').set('host', 'localhost:8080');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(res.text)).toEqual({
      specVersion: 'draft',
      entries: [
        {
          identifier: 'urn:air:localhost:com.example/weather',
          displayName: 'Weather',
          type: CARD_TYPE,
          url: 'http://localhost:8080/mcp/server-card',
        },
        {
          identifier: 'urn:air:localhost:com.example/billing',
          displayName: 'com.example/billing',
          type: CARD_TYPE,
          url: 'https://api.example.com/billing/mcp/server-card',
        },
      ],
    });
  });

  it('answers only the Host names the endpoint answers (no card for a rebinding name)', async () => {
    for (const path of ['/mcp/server-card', '/.well-known/mcp/catalog.json']) {
      const res = await request(app.getHttpServer()).get(path).set('host', 'evil.example');
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('weather');
    }
  });
});

describe('Without the catalog option', () => {
  it('serves no catalog, and the card under the global prefix', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'solo', version: '1.0.0' })]);
    try {
      expect((await request(app.getHttpServer()).get('/.well-known/mcp/catalog.json')).status).toBe(404);
      expect((await request(app.getHttpServer()).get('/mcp/server-card')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe.each(HTTP_ADAPTERS)('The Server Card of a server with auth, on %s', (adapter) => {
  const auth = { resource: RESOURCE, authorizationServers: [ISSUER], verify: () => ({ sub: 'someone' }) };
  const cardOf = async (options: Partial<McpModuleOptions>) => {
    const app = await createApp(
      [McpModule.forRoot({ name: 'com.example/payroll', version: '3.0.0', ...options })],
      [],
      adapter,
    );
    try {
      return await request(app.getHttpServer()).get('/mcp/server-card');
    } finally {
      await app.close();
    }
  };

  it('announces nothing unless the app asks: no card for an OAuth resource server or an app that identifies callers', async () => {
    for (const options of [{ auth }, { auth: { identify: (user: { id: string }) => user.id } }]) {
      const res = await cardOf(options);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('payroll');
    }
  });

  it('serves the card when http.serverCard asks for it, naming the protected resource', async () => {
    const res = await cardOf({ auth, http: { serverCard: true } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({
      name: 'com.example/payroll',
      remotes: [{ type: 'streamable-http', url: RESOURCE }],
    });
  });

  it('refuses to start with a catalog that would list a card it does not serve', async () => {
    for (const options of [{ auth, http: { catalog: true } }, { http: { catalog: true, serverCard: false } }]) {
      const started = createApp([McpModule.forRoot({ name: 'listed', version: '1.0.0', ...options })], [], adapter);
      await expect(started).rejects.toThrow(McpConfigurationError);
      await expect(started).rejects.toThrow('Set http.serverCard: true to publish the card, or drop http.catalog');
    }
  });
});
