import 'reflect-metadata';
import { Injectable, UseGuards, type CanActivate, type INestApplication, type Type } from '@nestjs/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MCPServer,
  McpConfigurationError,
  McpCtx,
  McpModule,
  RequireScopes,
  Resource,
  ResourceUri,
  Tool,
  UiResource,
  type McpContext,
} from '../../src/index.js';
import { createMcpTestClient, mcpMessage, type McpTestClient } from '../../src/testing/index.js';
import { AppModule } from '../../examples/apps/app.module.js';
import { CARD_URI } from '../../examples/apps/weather-card.tools.js';
import { weatherFor } from '../../examples/apps/weather-report.js';
import { buildWidget, WIDGETS } from '../../scripts/build-widgets.mjs';
import { createApp } from '../support/create-app.js';
import { createTestIssuer, ISSUER, RESOURCE, type TestIssuer } from '../support/auth-tokens.js';
import { legacyPost, legacyRequest } from '../support/legacy-client.js';

const UI = 'io.modelcontextprotocol/ui';
const UI_MIME = 'text/html;profile=mcp-app';
const UI_CLIENT = { extensions: { [UI]: { mimeTypes: [UI_MIME] } } };

describe('MCP Apps: the example (examples/apps)', () => {
  let app: INestApplication;
  let ui: McpTestClient;
  let plain: McpTestClient;

  beforeAll(async () => {
    await buildWidget(WIDGETS[0]);
    app = await createApp([AppModule]);
    ui = createMcpTestClient(app, { clientCapabilities: UI_CLIENT });
    plain = createMcpTestClient(app, { clientCapabilities: {} });
  });
  afterAll(() => app.close());

  it('names the card on show_weather with both keys hosts read, in a public (cacheable) list', async () => {
    const { result } = await plain.listTools();
    const show = result!.tools.find((t) => t.name === 'show_weather')!;
    expect(show._meta).toEqual({ ui: { resourceUri: CARD_URI }, 'ui/resourceUri': CARD_URI });
    expect(show.inputSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });
    expect(result!.tools.find((t) => t.name === 'get_weather')!.inputSchema).toMatchObject({
      properties: { city: { type: 'string' } },
    });
    expect((result as Record<string, unknown>).cacheScope).toBe('public');
  });

  it('advertises the extension in server/discover', async () => {
    const { result } = await plain.discover();
    expect((result!.capabilities as Record<string, unknown>).extensions).toEqual({ [UI]: {} });
  });

  it('answers show_weather with text and structuredContent, get_weather with the same structuredContent', async () => {
    const shown = await ui.callTool('show_weather', { city: 'Lisbon' });
    const expected = weatherFor('Lisbon');
    expect(typeof expected.temperatureC).toBe('number');
    expect(shown.result!.structuredContent).toEqual(expected);
    expect(shown.result!.content[0]).toMatchObject({ type: 'text' });
    const got = await ui.callTool('get_weather', { city: 'Lisbon' });
    expect(got.result!.structuredContent).toEqual(expected);
    expect((await ui.callTool('get_weather', { city: 'Oslo' })).result!.structuredContent).toEqual(weatherFor('Oslo'));
  });

  it('tells the tool per request whether the caller renders UIs', async () => {
    const withUi = await ui.callTool('show_weather', { city: 'Lisbon' });
    const without = await plain.callTool('show_weather', { city: 'Lisbon' });
    const { temperatureC } = weatherFor('Lisbon');
    expect(without.result!.content).toEqual([{ type: 'text', text: `Lisbon: ${temperatureC} °C` }]);
    expect(withUi.result!.content).toEqual([
      { type: 'text', text: `Lisbon: ${temperatureC} °C (on the weather card)` },
    ]);
  });

  it('serves the card as one HTML document with its scripts inlined and _meta.ui.csp on the content item', async () => {
    const { result } = await plain.readResource(CARD_URI);
    const [item] = result!.contents as Array<{ uri: string; mimeType: string; text: string; _meta: any }>;
    expect(item).toMatchObject({ uri: CARD_URI, mimeType: UI_MIME });
    expect(item._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [] });
    expect(item._meta.ui.prefersBorder).toBe(true);
    expect(item.text).toMatch(/^<!doctype html>/i);
    const sources = [...item.text.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi)].map((m) => m[1]);
    expect(sources.filter((src) => !src.startsWith('data:'))).toEqual([]);
    for (const id of ['city', 'temp', 'refresh', 'status']) expect(item.text).toContain(`id="${id}"`);
    const listed = await plain.listResources();
    expect(listed.result!.resources).toEqual([
      expect.objectContaining({ uri: CARD_URI, mimeType: UI_MIME, _meta: { ui: item._meta.ui } }),
    ]);
  });

  it('serves the same to a 2025-era client: the extension in initialize, the UI on the tool', async () => {
    const init = await legacyPost(
      app,
      legacyRequest('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: UI_CLIENT,
        clientInfo: { name: 'legacy', version: '1' },
      }),
    );
    expect(init.status).toBe(200);
    expect(init.body.result.capabilities.extensions).toEqual({ [UI]: {} });
    const list = await legacyPost(app, legacyRequest('tools/list'));
    const show = list.body.result.tools.find((t: { name: string }) => t.name === 'show_weather');
    expect(show._meta['ui/resourceUri']).toBe(CARD_URI);
    const call = await legacyPost(
      app,
      legacyRequest('tools/call', { name: 'show_weather', arguments: { city: 'Rome' } }),
    );
    expect(call.body.result.structuredContent).toEqual(weatherFor('Rome'));
    // The capabilities of a 2025-era client are not kept, so the tool answers as for a client without UIs.
    expect(call.body.result.content[0].text).toBe(`Rome: ${weatherFor('Rome').temperatureC} °C`);
    const read = await legacyPost(app, legacyRequest('resources/read', { uri: CARD_URI }));
    expect(read.body.result.contents[0]).toMatchObject({ mimeType: UI_MIME, _meta: { ui: { csp: {} } } });
  });
});

@Injectable()
class DenyAll implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

@Injectable()
class BoardTools {
  @UiResource({
    uri: 'ui://board/view.html',
    name: 'board',
    csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
    permissions: { clipboardWrite: {} },
    domain: 'board.example-sandbox.com',
    prefersBorder: false,
  })
  view(@ResourceUri() uri: string, @McpCtx() ctx: McpContext): string {
    return `<!doctype html><p>${uri} for ${ctx.protocolVersion}</p>`;
  }

  @Tool({ name: 'show_board', ui: { resourceUri: 'ui://board/view.html', visibility: ['model'] } })
  show(): string {
    return 'the board';
  }

  @RequireScopes('board:write')
  @Tool({ name: 'move_card', ui: { resourceUri: 'ui://board/view.html', visibility: ['app'] } })
  move(): string {
    return 'moved';
  }

  @UseGuards(DenyAll)
  @Tool({ name: 'archive_card', ui: { resourceUri: 'ui://board/view.html', visibility: ['app'] } })
  archive(): string {
    return 'archived';
  }
}

describe('MCP Apps: declaring UIs with decorators', () => {
  let app: INestApplication;
  let issuer: TestIssuer;
  let mcp: McpTestClient;
  const bearer = async (scope?: string) => ({ authorization: `Bearer ${await issuer.token(scope ? { scope } : {})}` });

  beforeAll(async () => {
    issuer = await createTestIssuer();
    app = await createApp(
      [
        McpModule.forRoot({
          name: 'board',
          version: '1.0.0',
          auth: { resource: RESOURCE, authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwks: issuer.jwks } },
        }),
      ],
      [BoardTools],
    );
    mcp = createMcpTestClient(app);
  });
  afterAll(() => app.close());

  it('publishes visibility, csp, permissions, domain and prefersBorder as declared', async () => {
    const list = await mcp.post(mcpMessage('tools/list'), await bearer('board:write'));
    const tools = Object.fromEntries(list.body.result.tools.map((t: any) => [t.name, t._meta]));
    expect(tools.show_board.ui).toEqual({ resourceUri: 'ui://board/view.html', visibility: ['model'] });
    expect(tools.move_card.ui).toEqual({ resourceUri: 'ui://board/view.html', visibility: ['app'] });
    const read = await mcp.post(mcpMessage('resources/read', { uri: 'ui://board/view.html' }), await bearer());
    expect(read.body.result.contents).toEqual([
      {
        uri: 'ui://board/view.html',
        mimeType: UI_MIME,
        text: '<!doctype html><p>ui://board/view.html for 2026-07-28</p>',
        _meta: {
          ui: {
            csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
            permissions: { clipboardWrite: {} },
            domain: 'board.example-sandbox.com',
            prefersBorder: false,
          },
        },
      },
    ]);
  });

  it('gives app-only tools the same scopes and guards as any tool', async () => {
    const denied = await mcp.post(mcpMessage('tools/call', { name: 'move_card', arguments: {} }), await bearer());
    expect(denied.status).toBe(403);
    const allowed = await mcp.post(
      mcpMessage('tools/call', { name: 'move_card', arguments: {} }),
      await bearer('board:write'),
    );
    expect(allowed.status).toBe(200);
    expect(allowed.body.result.content).toEqual([{ type: 'text', text: 'moved' }]);
    const guarded = await mcp.post(mcpMessage('tools/call', { name: 'archive_card', arguments: {} }), await bearer());
    expect(guarded.body.error ?? guarded.body.result.isError).toBeTruthy();
    expect(JSON.stringify(guarded.body)).not.toContain('archived');
  });

  it('keeps a scoped app-only tool out of the list of a caller without the scope, which is then private', async () => {
    const list = await mcp.post(mcpMessage('tools/list'), await bearer());
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).not.toContain('move_card');
    expect(list.body.result.cacheScope).toBe('private');
  });
});

/** Boots a module with the given providers and returns the start-up error. */
async function startupError(providers: Type<unknown>[], init?: (server: MCPServer) => void): Promise<Error> {
  @Injectable()
  class Registrar {
    constructor(private readonly server: MCPServer) {}
    onModuleInit(): void {
      init?.(this.server);
    }
  }
  try {
    const app = await createApp([McpModule.forRoot({ name: 'broken', version: '1.0.0' })], [...providers, Registrar]);
    await app.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error('start-up succeeded');
}

describe('MCP Apps: registration checks at start-up', () => {
  it('refuses a tool whose UI resource is not registered, naming tool and uri', async () => {
    @Injectable()
    class Lonely {
      @Tool({ name: 'lonely', ui: { resourceUri: 'ui://nowhere/view.html' } })
      lonely(): string {
        return '';
      }
    }
    const error = await startupError([Lonely]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain(
      'tool "lonely" names the UI resource "ui://nowhere/view.html", which is not registered',
    );
  });

  it('refuses a tool whose UI names an ordinary resource', async () => {
    @Injectable()
    class HtmlResource {
      @Resource({ uri: 'ui://plain/page.html', name: 'page', mimeType: 'text/html' })
      page(): string {
        return '<p>hi</p>';
      }
      @Tool({ name: 'show_page', ui: { resourceUri: 'ui://plain/page.html' } })
      show(): string {
        return '';
      }
    }
    const error = await startupError([HtmlResource]);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('whose mimeType is "text/html", not "text/html;profile=mcp-app"');
  });

  it('refuses a UI resource outside ui://, or with another mimeType, naming the method', async () => {
    @Injectable()
    class WrongScheme {
      @UiResource({ uri: 'https://example.com/view.html', name: 'view' })
      view(): string {
        return '';
      }
    }
    const scheme = await startupError([WrongScheme]);
    expect(scheme).toBeInstanceOf(McpConfigurationError);
    expect(scheme.message).toBe(
      'WrongScheme.view: UI resource "https://example.com/view.html": the uri must start with ui:// (like "ui://weather/card.html")',
    );
    @Injectable()
    class WrongMime {
      @UiResource({ uri: 'ui://x/view.html', name: 'view', mimeType: 'text/html' })
      view(): string {
        return '';
      }
    }
    const mime = await startupError([WrongMime]);
    expect(mime).toBeInstanceOf(McpConfigurationError);
    expect(mime.message).toContain('mimeType must be "text/html;profile=mcp-app" (the default), got "text/html"');
  });

  it('refuses a tool UI outside ui:// and a visibility other than model/app', async () => {
    @Injectable()
    class BadTool {
      @Tool({ name: 'bad', ui: { resourceUri: 'https://example.com/x' } })
      bad(): string {
        return '';
      }
    }
    const uri = await startupError([BadTool]);
    expect(uri).toBeInstanceOf(McpConfigurationError);
    expect(uri.message).toContain('Tool "bad": ui.resourceUri must be a ui:// URI');
    @Injectable()
    class BadVisibility {
      @Tool({ name: 'bad', ui: { resourceUri: 'ui://x/y', visibility: ['user' as 'app'] } })
      bad(): string {
        return '';
      }
    }
    expect((await startupError([BadVisibility])).message).toContain(
      'ui.visibility must list "model" and/or "app" once each, got ["user"]',
    );
  });

  it('refuses a csp origin that would add directives, and unknown csp or permission keys', async () => {
    const register = (extra: Record<string, unknown>) => (server: MCPServer) =>
      server.addUiResource({ uri: 'ui://x/view.html', name: 'view', html: '<p></p>', ...extra });
    expect(
      (await startupError([], register({ csp: { connectDomains: ['https://a.example.com; script-src *'] } }))).message,
    ).toContain('csp.connectDomains must be a list of origins');
    expect((await startupError([], register({ csp: { scriptDomains: [] } }))).message).toContain(
      'csp.scriptDomains is not a CSP list',
    );
    expect((await startupError([], register({ permissions: { usb: {} } }))).message).toContain(
      'permissions.usb is not a permission',
    );
    expect((await startupError([], register({ html: undefined }))).message).toContain(
      'give exactly one of html, file or handler (got 0)',
    );
  });

  it('reads a file UI at registration: a missing file fails start-up naming its path', async () => {
    const error = await startupError([], (server) =>
      server.addUiResource({ uri: 'ui://x/view.html', name: 'view', file: '/nonexistent/card.html' }),
    );
    expect(error.message).toBe(
      'UI resource "ui://x/view.html": cannot read /nonexistent/card.html (ENOENT); build the UI first or fix the path',
    );
  });
});

describe('MCP Apps: run-time registration', () => {
  let app: INestApplication;
  let server: MCPServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apps-'));
    app = await createApp([McpModule.forRoot({ name: 'runtime', version: '1.0.0' })]);
    server = app.get(MCPServer);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a file UI as it was when registered, and a tool added after it with registerTool', async () => {
    const file = join(dir, 'view.html');
    writeFileSync(file, '<!doctype html><p>v1</p>');
    const resource = server.addUiResource({ uri: 'ui://rt/view.html', name: 'view', file });
    writeFileSync(file, '<!doctype html><p>v2</p>');
    const tool = server.registerTool('rt_show', 'Shows the view', { type: 'object' }, () => 'shown', {
      ui: { resourceUri: 'ui://rt/view.html' },
    });
    const mcp = createMcpTestClient(app, { clientCapabilities: {} });
    expect((await mcp.readResource('ui://rt/view.html')).result!.contents[0]).toEqual({
      uri: 'ui://rt/view.html',
      mimeType: UI_MIME,
      text: '<!doctype html><p>v1</p>',
    });
    const listed = (await mcp.listTools()).result!.tools.find((t) => t.name === 'rt_show')!;
    expect(listed._meta).toEqual({ ui: { resourceUri: 'ui://rt/view.html' }, 'ui/resourceUri': 'ui://rt/view.html' });
    expect(((await mcp.discover()).result!.capabilities as any).extensions).toEqual({ [UI]: {} });
    tool.remove();
    resource.remove();
    // With no UI tool left, the extension is no longer advertised.
    expect(((await mcp.discover()).result!.capabilities as any).extensions).toBeUndefined();
  });

  it('refuses, once started, a tool whose UI resource is not there yet', () => {
    expect(() =>
      server.addTool({ name: 'early', ui: { resourceUri: 'ui://rt/later.html' }, handler: () => 'x' }),
    ).toThrow('Tool "early": tool "early" names the UI resource "ui://rt/later.html", which is not registered');
    expect(server.hasTool('early')).toBe(false);
  });

  it('filters a list by the per-request UI capability only when a tool asks to, and then marks it private', async () => {
    server.addUiResource({ uri: 'ui://rt/only.html', name: 'only', html: '<p>ui</p>' });
    server.addTool({
      name: 'ui_only',
      ui: { resourceUri: 'ui://rt/only.html' },
      visible: (ctx) => ctx.supportsUi(),
      handler: () => 'x',
    });
    const withUi = await createMcpTestClient(app, { clientCapabilities: UI_CLIENT }).listTools();
    const without = await createMcpTestClient(app, { clientCapabilities: {} }).listTools();
    expect(withUi.result!.tools.map((t) => t.name)).toContain('ui_only');
    expect(without.result!.tools.map((t) => t.name)).not.toContain('ui_only');
    expect((withUi.result as any).cacheScope).toBe('private');
    expect((without.result as any).cacheScope).toBe('private');
  });
});
