import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { McpModule } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { challengeParams, ISSUER } from '../support/auth-tokens.js';

const verify = () => null;

/** An app with one protected MCP server per entry (served at `path`, protected as `resource`). */
async function appWithServers(
  servers: Array<{ name: string; path: string; resource: string; scope?: string }>,
  globalPrefix?: string,
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: servers.map(({ name, path, resource, scope }, index) =>
      McpModule.forRoot({
        name,
        version: '1.0.0',
        path,
        // The first server is the default one (the one MCPServer injects); the others are injected by name.
        isDefault: index === 0,
        auth: { resource, authorizationServers: [ISSUER], scopesSupported: scope ? [scope] : undefined, verify },
      }),
    ),
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  // The well-known URLs live at the host root whatever the API prefix.
  if (globalPrefix) app.setGlobalPrefix(globalPrefix);
  await app.init();
  return app;
}

describe('Protected Resource Metadata URLs with a global prefix and two servers', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await appWithServers(
      [
        { name: 'files', path: '/files/mcp', resource: 'https://api.example.com/api/files/mcp', scope: 'files' },
        { name: 'mail', path: '/mail/mcp', resource: 'https://api.example.com/api/mail/mcp', scope: 'mail' },
      ],
      'api',
    );
  });
  afterAll(() => app.close());

  it.each([
    ['/.well-known/oauth-protected-resource/api/files/mcp', 'https://api.example.com/api/files/mcp'],
    ['/.well-known/oauth-protected-resource/api/mail/mcp', 'https://api.example.com/api/mail/mcp'],
  ])('serves each server its own document at %s', async (path, resource) => {
    const res = await request(app.getHttpServer()).get(path).expect(200);
    expect(res.body.resource).toBe(resource);
  });

  it('serves no document at the root URL, since neither resource is the bare origin (RFC 9728 §3.3)', async () => {
    await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource').expect(404);
  });

  it('points each 401 challenge at its own document', async () => {
    const files = await createMcpTestClient(app, { path: '/api/files/mcp' }).post(mcpMessage('server/discover'));
    expect(files.status).toBe(401);
    expect(challengeParams(files.headers['www-authenticate'])).toEqual({
      scope: 'files',
      resource_metadata: 'https://api.example.com/.well-known/oauth-protected-resource/api/files/mcp',
    });
    const mail = await createMcpTestClient(app, { path: '/api/mail/mcp' }).post(mcpMessage('server/discover'));
    expect(mail.status).toBe(401);
    expect(challengeParams(mail.headers['www-authenticate']).resource_metadata).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource/api/mail/mcp',
    );
  });
});

describe('Protected Resource Metadata at the root URL with a path resource registered first', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await appWithServers([
      { name: 'files', path: '/files/mcp', resource: 'https://api.example.com/files/mcp' },
      { name: 'root', path: '/', resource: 'https://api.example.com' },
    ]);
  });
  afterAll(() => app.close());

  it('serves the root URL from the server whose resource is the origin, not from the first one', async () => {
    const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource').expect(200);
    expect(res.body.resource).toBe('https://api.example.com');
    const files = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/files/mcp').expect(200);
    expect(files.body.resource).toBe('https://api.example.com/files/mcp');
  });
});
