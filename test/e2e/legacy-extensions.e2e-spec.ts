import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type request from 'supertest';
import { McpModule } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { DiagnosticTools } from '../../examples/conformance/diagnostic.tools.js';
import { SERVER_EXTENSIONS } from '../../examples/conformance/fixture-data.js';
import { fixtureMcpModules } from '../../examples/conformance/mcp-setup.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { legacyPost, legacyRequest } from '../support/legacy-client.js';

/**
 * Extensions in the 2025-era handshake, as the referee's `server-legacy-extensions` checks them on the
 * conformance fixture: the server's own, settings and all, in the `initialize` result, and a tool that reports
 * the client's as the server sees them. On the 2025 leg only `initialize` declares them, so only a session keeps
 * them for later calls; on 2026-07-28 every request declares its own.
 */
const CLIENT_EXTENSIONS = {
  'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] },
  'com.example/conformance': { nested: { enabled: false, limit: 0 }, values: ['a', 2, null] },
  'com.example/empty': {},
};
const ECHO = 'test_legacy_extension_capabilities';

/** The one JSON-RPC response of a POST, whether it came as JSON or on an SSE stream. */
function responseOf(res: request.Response): any {
  if (!String(res.headers['content-type']).includes('text/event-stream')) return res.body;
  const data = res.text.split('\n').filter((line) => line.startsWith('data: '));
  return JSON.parse(data[data.length - 1].slice('data: '.length));
}

const initialize = legacyRequest('initialize', {
  protocolVersion: '2025-11-25',
  capabilities: { extensions: CLIENT_EXTENSIONS },
  clientInfo: { name: 'legacy-extension-conformance', version: '1.0.0' },
});

describe.each(HTTP_ADAPTERS)('Extensions over the 2025-11-25 handshake on %s', (adapter) => {
  describe.each(['stateful', 'stateless'] as const)('legacy.mode %s', (mode) => {
    let app: INestApplication;

    beforeAll(async () => {
      app = await createApp(fixtureMcpModules({ MCP_LEGACY: mode }), [DiagnosticTools], adapter);
    });
    afterAll(() => app.close());

    it('advertises the extensions with their settings; the echo tool reports what the server kept', async () => {
      const init = await legacyPost(app, initialize);
      expect(init.status).toBe(200);
      const result = responseOf(init).result;
      expect(result.protocolVersion).toBe('2025-11-25');
      expect(result.capabilities.extensions).toMatchObject(SERVER_EXTENSIONS);
      for (const [id, settings] of Object.entries(SERVER_EXTENSIONS))
        expect(result.capabilities.extensions[id]).toStrictEqual(settings);

      const session = init.headers['mcp-session-id'] as string | undefined;
      expect(session !== undefined).toBe(mode === 'stateful');
      const withSession = session ? { 'mcp-session-id': session } : {};
      expect((await legacyPost(app, { jsonrpc: '2.0', method: 'notifications/initialized' }, withSession)).status).toBe(
        202,
      );
      const call = await legacyPost(app, legacyRequest('tools/call', { name: ECHO, arguments: {} }), withSession);
      expect(call.status).toBe(200);
      const answer = responseOf(call).result;
      expect(answer.isError).toBeFalsy();
      const { extensions } = JSON.parse(answer.content[0].text);
      // A session keeps what initialize declared; without one, the call itself declared nothing.
      expect(extensions).toStrictEqual(mode === 'stateful' ? CLIENT_EXTENSIONS : {});
    });
  });

  describe('2026-07-28', () => {
    let app: INestApplication;

    beforeAll(async () => {
      app = await createApp(fixtureMcpModules({}), [DiagnosticTools], adapter);
    });
    afterAll(() => app.close());

    it('leaves the 2025-only ones out of server/discover; the tool sees what each request declares', async () => {
      const client = createMcpTestClient(app);
      const discover = await client.post(mcpMessage('server/discover'));
      expect(discover.body.error).toBeUndefined();
      expect(Object.keys(discover.body.result.capabilities.extensions ?? {})).not.toContain('com.example/conformance');
      const call = await client.post(
        mcpMessage(
          'tools/call',
          { name: ECHO, arguments: {} },
          { clientCapabilities: { extensions: CLIENT_EXTENSIONS } },
        ),
      );
      expect(JSON.parse(call.body.result.content[0].text).extensions).toStrictEqual(CLIENT_EXTENSIONS);
    });
  });
});

describe.each(HTTP_ADAPTERS)('The extensions option on %s', (adapter) => {
  let app: INestApplication;
  const maps = { 'com.example/maps': { formats: ['png', 'svg'], maxZoom: 18, tiles: { vector: true } } };

  beforeAll(async () => {
    app = await createApp(
      [
        McpModule.forRoot({
          name: 'x',
          version: '1.0.0',
          extensions: maps,
          legacy: { extensions: { 'com.example/maps': { old: null }, 'com.example/old-only': { flag: null } } },
        }),
      ],
      [],
      adapter,
    );
  });
  afterAll(() => app.close());

  it('names the top-level ones in both handshakes and legacy.extensions in the 2025-era one only', async () => {
    const discover = await createMcpTestClient(app).post(mcpMessage('server/discover'));
    expect(discover.body.result.capabilities.extensions).toStrictEqual(maps);
    const init = responseOf(await legacyPost(app, initialize)).result;
    // The top-level settings win on the same identifier.
    expect(init.capabilities.extensions).toStrictEqual({ ...maps, 'com.example/old-only': { flag: null } });
  });
});

describe('The extensions options at start-up', () => {
  it.each([
    ['an identifier without a vendor', { ui: {} }],
    ['settings that are not an object', { 'com.example/flag': true }],
    ['an identifier with white space', { 'com.example/two words': {} }],
    ['a null, which 2026-07-28 does not carry', { 'com.example/x': { values: [null] } }],
    ['a fraction, likewise', { 'com.example/x': { ratio: 0.5 } }],
  ])('refuses %s in extensions', async (_what, extensions) => {
    await expect(
      createApp([McpModule.forRoot({ name: 'x', version: '1.0.0', extensions: extensions as never })]),
    ).rejects.toThrow(/^extensions: .* must be an identifier "vendor\/name"/);
  });

  it('takes a null in legacy.extensions, but not a bad identifier', async () => {
    const ok = await createApp([
      McpModule.forRoot({ name: 'x', version: '1.0.0', legacy: { extensions: { 'a.b/c': { v: [null, 0.5] } } } }),
    ]);
    await ok.close();
    await expect(
      createApp([McpModule.forRoot({ name: 'x', version: '1.0.0', legacy: { extensions: { c: {} } } })]),
    ).rejects.toThrow(/^legacy.extensions: "c" must be an identifier/);
  });
});
