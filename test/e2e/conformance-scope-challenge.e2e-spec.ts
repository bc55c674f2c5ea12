import 'reflect-metadata';
import type { INestApplication, Type } from '@nestjs/common';
import request from 'supertest';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

/**
 * The conformance fixture in its SEP-2350 mode, driven as the referee's `sep-2350-server-scope-challenge` does:
 * each primitive is called with the low fixture token (a 403 whose one challenge names every scope the operation
 * needs, with same-origin protected-resource metadata), then retried with the full token (the normal result).
 */
const PORT = 3000;
const HOST = `127.0.0.1:${PORT}`;
const METADATA = `http://${HOST}/.well-known/oauth-protected-resource/mcp`;

const FIXTURES = [
  {
    label: 'tools/call',
    method: 'tools/call',
    params: { name: 'test_simple_text', arguments: {} },
    scopes: ['mcp:conformance:tools:call', 'mcp:conformance:tools:test_simple_text'],
    result: (r: any) => expect(r.content[0]).toEqual({ type: 'text', text: expect.any(String) }),
  },
  {
    label: 'static resources/read',
    method: 'resources/read',
    params: { uri: 'test://static-text' },
    scopes: ['mcp:conformance:resources:read', 'mcp:conformance:resources:static'],
    result: (r: any) => expect(r.contents[0]).toMatchObject({ uri: 'test://static-text', text: expect.any(String) }),
  },
  {
    label: 'template resources/read',
    method: 'resources/read',
    params: { uri: 'test://template/123/data' },
    scopes: ['mcp:conformance:resources:read', 'mcp:conformance:resources:template:123'],
    result: (r: any) =>
      expect(r.contents[0]).toMatchObject({ uri: 'test://template/123/data', text: expect.stringContaining('123') }),
  },
  {
    label: 'prompts/get',
    method: 'prompts/get',
    params: { name: 'test_simple_prompt' },
    scopes: ['mcp:conformance:prompts:get', 'mcp:conformance:prompts:test_simple_prompt'],
    result: (r: any) => expect(r.messages[0]).toMatchObject({ role: 'user', content: expect.any(Object) }),
  },
];

/** `Bearer k="v", …` into its parameters (values are quoted tokens here: no commas inside). */
function challengeOf(header: string | undefined): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...header!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

let ConformanceModule: Type<unknown>;
const saved = { mode: process.env.MCP_SCOPE_CHALLENGE, port: process.env.PORT };

beforeAll(async () => {
  // The mode is read when the fixture's providers are defined, so it is set before they are loaded.
  process.env.MCP_SCOPE_CHALLENGE = '1';
  process.env.PORT = String(PORT);
  ({ ConformanceModule } = await import('../../examples/conformance/app.module.js'));
});
afterAll(() => {
  for (const [key, value] of [
    ['MCP_SCOPE_CHALLENGE', saved.mode],
    ['PORT', saved.port],
  ] as const)
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
});

describe.each(HTTP_ADAPTERS)('The conformance fixture in its scope-challenge mode on %s', (adapter) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([ConformanceModule], [], adapter);
  });
  afterAll(() => app.close());

  const post = (body: ReturnType<typeof mcpMessage>, token?: string) => {
    const req = request(app.getHttpServer()).post('/mcp').set(mcpHeaders(body)).set('host', HOST);
    if (token) req.set('authorization', `Bearer ${token}`);
    return req.send(body);
  };

  it.each(FIXTURES)('$label: 403 naming every scope with the low token, the result with the full one', async (f) => {
    const body = mcpMessage(f.method, f.params);
    const low = await post(body, 'mcp-conformance-scope-low');
    expect(low.status).toBe(403);
    const challenge = challengeOf(low.headers['www-authenticate']);
    expect(challenge.error).toBe('insufficient_scope');
    expect(challenge.scope.split(' ').sort()).toEqual([...f.scopes].sort());
    expect(challenge.resource_metadata).toBe(METADATA);

    const full = await post(body, 'mcp-conformance-scope-full');
    expect(full.status).toBe(200);
    expect(full.body.error).toBeUndefined();
    f.result(full.body.result);
  });

  it('another token is a 401 invalid_token; no token is the 401 that points at the metadata', async () => {
    const body = mcpMessage('tools/call', { name: 'test_simple_text', arguments: {} });
    const other = await post(body, 'mcp-conformance-scope-other');
    expect(other.status).toBe(401);
    expect(challengeOf(other.headers['www-authenticate']).error).toBe('invalid_token');
    const none = await post(body);
    expect(none.status).toBe(401);
    expect(challengeOf(none.headers['www-authenticate']).resource_metadata).toBe(METADATA);
  });

  it('the low token lists none of the scoped primitives; a template id the full token lacks is refused', async () => {
    const tools = await post(mcpMessage('tools/list'), 'mcp-conformance-scope-low');
    expect(tools.body.result.tools.map((t: { name: string }) => t.name)).not.toContain('test_simple_text');
    expect(tools.body.result.tools.length).toBeGreaterThan(0);
    const other = await post(
      mcpMessage('resources/read', { uri: 'test://template/7/data' }),
      'mcp-conformance-scope-full',
    );
    expect(other.status).toBe(403);
    expect(challengeOf(other.headers['www-authenticate']).scope).toBe(
      'mcp:conformance:resources:read mcp:conformance:resources:template:7',
    );
  });

  it('serves the protected-resource metadata the challenge names', async () => {
    const res = await request(app.getHttpServer()).get('/.well-known/oauth-protected-resource/mcp').set('host', HOST);
    expect(res.status).toBe(200);
    expect(res.body.resource).toBe(`http://${HOST}/mcp`);
  });
});
