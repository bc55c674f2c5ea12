import 'reflect-metadata';
import { Injectable, type INestApplication } from '@nestjs/common';
import { McpModule, Prompt, RequireScopes, Resource, Tool } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { createTestIssuer, challengeParams, ISSUER, RESOURCE, type TestIssuer } from '../support/auth-tokens.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';

@Injectable()
@RequireScopes('files:read')
class FileTools {
  @Tool({ description: 'Reads a file' })
  read_file() {
    return 'contents';
  }

  @Tool({ description: 'Writes a file' })
  @RequireScopes('files:write')
  write_file() {
    return 'written';
  }

  @Resource({ uri: 'file:///audit.log', name: 'audit', mimeType: 'text/plain' })
  @RequireScopes('files:audit')
  audit() {
    return 'audit trail';
  }

  @Prompt({ name: 'summarize', description: 'Summarize a file' })
  summarize() {
    return 'Summarize it.';
  }
}

/** `@RequireScopes` on decorated primitives, class-level and method-level, under a real JWT verifier. */
describe('@RequireScopes on @Tool, @Resource and @Prompt', () => {
  let app: INestApplication;
  let mcp: McpTestClient;
  let issuer: TestIssuer;
  const bearer = async (scope?: string) => ({ authorization: `Bearer ${await issuer.token(scope ? { scope } : {})}` });

  beforeAll(async () => {
    issuer = await createTestIssuer();
    app = await createApp(
      [
        McpModule.forRoot({
          name: 'files',
          version: '1.0.0',
          auth: { resource: RESOURCE, authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwks: issuer.jwks } },
        }),
      ],
      [FileTools],
    );
    mcp = createMcpTestClient(app);
  });
  afterAll(() => app.close());

  it('applies the class scope to every method and adds the method scope', async () => {
    expect(
      (await mcp.post(mcpMessage('tools/call', { name: 'read_file', arguments: {} }), await bearer('files:read')))
        .status,
    ).toBe(200);
    const denied = await mcp.post(
      mcpMessage('tools/call', { name: 'write_file', arguments: {} }),
      await bearer('files:read'),
    );
    expect(denied.status).toBe(403);
    expect(challengeParams(denied.headers['www-authenticate'])).toMatchObject({ error: 'insufficient_scope' });
    expect(challengeParams(denied.headers['www-authenticate']).scope.split(' ').sort()).toEqual([
      'files:read',
      'files:write',
    ]);
    expect(
      (
        await mcp.post(
          mcpMessage('tools/call', { name: 'write_file', arguments: {} }),
          await bearer('files:read files:write'),
        )
      ).status,
    ).toBe(200);
  });

  it('lists only what the caller may use, as a private list', async () => {
    const res = await mcp.post(mcpMessage('tools/list'), await bearer('files:read'));
    expect(res.status).toBe(200);
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['read_file']);
    expect(res.body.result.cacheScope).toBe('private');
    const none = await mcp.post(mcpMessage('tools/list'), await bearer());
    expect(none.status).toBe(200);
    expect(none.body.result.tools).toEqual([]);
  });

  it('guards decorated resources and prompts too', async () => {
    expect(
      (await mcp.post(mcpMessage('resources/read', { uri: 'file:///audit.log' }), await bearer('files:read'))).status,
    ).toBe(403);
    const read = await mcp.post(
      mcpMessage('resources/read', { uri: 'file:///audit.log' }),
      await bearer('files:read files:audit'),
    );
    expect(read.status).toBe(200);
    expect(read.body.result.contents[0].text).toBe('audit trail');
    expect((await mcp.post(mcpMessage('prompts/get', { name: 'summarize' }), await bearer())).status).toBe(403);
    expect((await mcp.post(mcpMessage('prompts/get', { name: 'summarize' }), await bearer('files:read'))).status).toBe(
      200,
    );
  });
});
