import 'reflect-metadata';
import { RequireScopes, McpPrincipal, McpConfigurationError } from '../../src/index.js';
import { bearerToken } from '../../src/auth/bearer-token.js';
import { canonicalResourceUri, defaultResourceMetadataUrl } from '../../src/auth/protected-resource-metadata.js';
import { ScopeHierarchy } from '../../src/auth/scope-hierarchy.js';
import { mcpMessage } from '../../src/testing/index.js';
import { McpKernel } from '../../src/core/index.js';
import { OAuthResourceServer } from '../../src/auth/oauth-resource-server.js';
import { bearerChallenge } from '../../src/auth/www-authenticate.js';
import { getRequiredScopes, MCP_REQUIRED_SCOPES } from '../../src/nest/decorators/require-scopes.decorator.js';

describe('bearerChallenge', () => {
  it('puts error, scope, resource_metadata and description in one Bearer challenge', () => {
    expect(
      bearerChallenge({
        resourceMetadata: 'https://x/.well-known/oauth-protected-resource',
        scopes: ['a', 'b'],
        error: 'insufficient_scope',
        errorDescription: 'Needs a b',
      }),
    ).toBe(
      'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource", error_description="Needs a b"',
    );
  });

  it('cannot be broken out of its quotes', () => {
    expect(bearerChallenge({ resourceMetadata: 'https://x', errorDescription: 'a"b\\c\r\nd' })).toBe(
      'Bearer resource_metadata="https://x", error_description="abcd"',
    );
  });
});

describe('bearerToken', () => {
  it.each([
    [undefined, undefined],
    ['Basic abc', undefined],
    ['Bearer abc.DEF-_~+/=', 'abc.DEF-_~+/='],
    ['bearer   abc', 'abc'],
    ['Bearer', null],
    ['Bearer a b', null],
    ['Bearer a,b', null],
  ])('reads %j as %j', (header, expected) => {
    expect(bearerToken(header)).toBe(expected);
  });
});

describe('canonicalResourceUri', () => {
  it('lower-cases scheme and host and drops a trailing slash', () => {
    expect(canonicalResourceUri('HTTPS://MCP.Example.com/Mcp/')).toBe('https://mcp.example.com/Mcp');
    expect(canonicalResourceUri('https://mcp.example.com/')).toBe('https://mcp.example.com');
  });

  it.each(['mcp.example.com', 'https://mcp.example.com/mcp#frag', 'ftp://mcp.example.com'])('refuses %s', (uri) => {
    expect(() => canonicalResourceUri(uri)).toThrow(/auth.resource/);
  });

  it('derives the path-inserted metadata URL', () => {
    expect(defaultResourceMetadataUrl('https://mcp.example.com/public/mcp')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
    );
    expect(defaultResourceMetadataUrl('https://mcp.example.com')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    );
  });
});

describe('ScopeHierarchy', () => {
  it('expands transitively and survives cycles', () => {
    const hierarchy = new ScopeHierarchy({ admin: ['write'], write: ['read', 'admin'] });
    expect(hierarchy.expand(['admin']).sort()).toEqual(['admin', 'read', 'write']);
    expect(hierarchy.expand(['read'])).toEqual(['read']);
  });
});

describe('OAuthResourceServer configuration', () => {
  const base = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'] };

  it('needs exactly one way to establish the principal', () => {
    expect(() => new OAuthResourceServer(base)).toThrow(
      /exactly one of jwt, introspection, verify and fromRequest; got none/,
    );
    expect(() => new OAuthResourceServer({ ...base, verify: () => null, fromRequest: () => null })).toThrow(
      /got verify, fromRequest/,
    );
  });

  it('needs an authorization server', () => {
    expect(() => new OAuthResourceServer({ ...base, authorizationServers: [], verify: () => null })).toThrow(
      /at least one/,
    );
  });

  it('refuses an authorization server that is not a URL, as a configuration error naming the option', () => {
    let thrown: unknown;
    try {
      new OAuthResourceServer({ ...base, authorizationServers: ['auth.example.com'], verify: () => null });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpConfigurationError);
    expect((thrown as Error).message).toBe('auth.authorizationServers must be an absolute URL, got "auth.example.com"');
  });

  it('needs a JWKS for JWTs', () => {
    expect(() => new OAuthResourceServer({ ...base, jwt: { issuer: 'https://auth.example.com' } })).toThrow(
      /exactly one of jwksUri, jwks and secret; got none/,
    );
  });

  it('keeps offline_access out of the metadata and the challenge', () => {
    const server = new OAuthResourceServer({
      ...base,
      scopesSupported: ['read', 'offline_access'],
      verify: () => null,
    });
    expect(server.metadata.scopes_supported).toEqual(['read']);
  });

  it('adds extra metadata members without letting them replace the required ones, and honours a metadata URL override', async () => {
    const server = new OAuthResourceServer({
      ...base,
      resourceMetadata: { resource_name: 'Files', resource: 'https://evil.example.com' },
      resourceMetadataUrl: 'https://meta.example.com/prm.json',
      verify: () => null,
    });
    expect(server.metadata).toEqual({
      resource_name: 'Files',
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
      bearer_methods_supported: ['header'],
    });
    const refused = await server.authenticate({ headers: {} } as never, {});
    expect(refused).toMatchObject({
      ok: false,
      status: 401,
      headers: { 'www-authenticate': 'Bearer resource_metadata="https://meta.example.com/prm.json"' },
    });
  });

  it('refuses scopes that cannot go into a challenge', () => {
    expect(() => new OAuthResourceServer({ ...base, scopesSupported: ['a b'], verify: () => null })).toThrow(
      /scope tokens/,
    );
  });
});

describe('McpPrincipal', () => {
  it('exposes identity as data and the token details as accessors', () => {
    const principal = new McpPrincipal({ iss: 'i', sub: 's', azp: 'c', scope: 'a b', exp: 10, jti: 'x' });
    expect(Object.keys(principal).sort()).toEqual(['clientId', 'issuer', 'subject']);
    expect(principal.scopes).toEqual(['a', 'b']);
    expect(principal.expiresAt).toBe(10);
    expect(principal.claims.jti).toBe('x');
  });
});

describe('@RequireScopes', () => {
  @RequireScopes('files:read')
  class FileTools {
    @RequireScopes('files:write', 'files:read')
    write(): void {}

    read(): void {}
  }

  it('stores the scopes under a documented key and merges class and method', () => {
    expect(Reflect.getMetadata(MCP_REQUIRED_SCOPES, FileTools.prototype.write)).toEqual(['files:write', 'files:read']);
    expect(getRequiredScopes(FileTools.prototype.write, FileTools)).toEqual(['files:read', 'files:write']);
    expect(getRequiredScopes(FileTools.prototype.read, FileTools)).toEqual(['files:read']);
    expect(getRequiredScopes(FileTools.prototype.read)).toBeUndefined();
  });

  it('refuses a scope that is not a scope token', () => {
    expect(() => RequireScopes('files write')).toThrow(/scope tokens/);
  });
});

describe('Scoped lists in the kernel', () => {
  const kernel = new McpKernel({ name: 'k', version: '1', limits: { pageSize: 2 } });
  for (const [name, scopes] of [
    ['a', undefined],
    ['b', ['x']],
    ['c', undefined],
    ['d', ['x', 'y']],
    ['e', undefined],
  ] as const) {
    kernel.addTool({
      name,
      description: name,
      inputSchema: { type: 'object' },
      requiredScopes: scopes && [...scopes],
      handler: () => name,
    });
  }

  async function listAll(scopes: string[]): Promise<{ names: string[]; cacheScopes: string[] }> {
    const names: string[] = [];
    const cacheScopes: string[] = [];
    let cursor: string | undefined;
    do {
      const response = await kernel.handleRequest(mcpMessage('tools/list', cursor ? { cursor } : {}), { scopes });
      const result = (
        response as unknown as { result: { tools: Array<{ name: string }>; nextCursor?: string; cacheScope: string } }
      ).result;
      names.push(...result.tools.map((t) => t.name));
      cacheScopes.push(result.cacheScope);
      cursor = result.nextCursor;
    } while (cursor);
    return { names, cacheScopes };
  }

  it('pages each visibility class on its own, every page private', async () => {
    expect(await listAll([])).toEqual({ names: ['a', 'c', 'e'], cacheScopes: ['private', 'private'] });
    expect(await listAll(['x'])).toEqual({ names: ['a', 'b', 'c', 'e'], cacheScopes: ['private', 'private'] });
    expect(await listAll(['x', 'y'])).toEqual({
      names: ['a', 'b', 'c', 'd', 'e'],
      cacheScopes: ['private', 'private', 'private'],
    });
  });

  it('keeps lists public when nothing in them is scoped', async () => {
    const open = new McpKernel({ name: 'k', version: '1' });
    open.addTool({ name: 'a', description: 'a', inputSchema: { type: 'object' }, handler: () => 'a' });
    const response = await open.handleRequest(mcpMessage('tools/list'));
    expect((response as unknown as { result: { cacheScope: string } }).result.cacheScope).toBe('public');
  });

  it('refuses a registration with an invalid scope', () => {
    expect(() =>
      kernel.addTool({
        name: 'z',
        description: 'z',
        inputSchema: { type: 'object' },
        requiredScopes: ['a"b'],
        handler: () => 'z',
      }),
    ).toThrow(/Tool "z": scopes must be an array of OAuth scope tokens/);
  });
});
