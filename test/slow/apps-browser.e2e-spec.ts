import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from 'mcp-sdk-v1/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from 'mcp-sdk-v1/client/streamableHttp.js';
import { MCPServer } from '../../src/index.js';
import { createMcpTestClient, renderToolUi, type RenderedToolUi } from '../../src/testing/index.js';
import { AppModule } from '../../examples/apps/app.module.js';
import { CARD_URI } from '../../examples/apps/weather-card.tools.js';
import { weatherFor } from '../../examples/apps/weather-report.js';
import { buildWidget, WIDGETS } from '../../scripts/build-widgets.mjs';
import { testChromium } from '../support/test-chromium.js';

// Each render starts a Chromium; on a shared 2-core CI box that alone can take longer than Jest's default 5 s.
jest.setTimeout(120_000);

const UI_CAPABILITY = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/**
 * The example's weather card in the machine's Chromium (`testChromium`), inside a host page built on the real
 * ext-apps AppBridge (`renderToolUi`), the host reaching the server over HTTP with the official clients of both eras.
 */
describe('MCP Apps in a browser: the example card', () => {
  let app: INestApplication;
  let url: URL;
  /** What reached the server, in order: `method name`. */
  const served: string[] = [];
  let executablePath: string;

  beforeAll(async () => {
    executablePath = await testChromium();
    await buildWidget(WIDGETS[0]);
    app = await NestFactory.create(AppModule, { logger: false });
    app.get(MCPServer).intercept(async (call, next) => {
      served.push(`${call.method} ${call.name ?? call.uri ?? ''}`.trim());
      return next();
    });
    await app.listen(0, '127.0.0.1');
    url = new URL(`${await app.getUrl()}/mcp`.replace('[::1]', '127.0.0.1'));
  });
  afterAll(() => app.close());

  describe('through the 2026-07-28 official client', () => {
    let client: Client;
    let view: RenderedToolUi;

    beforeAll(async () => {
      client = new Client(
        { name: 'apps-host', version: '1.0.0' },
        { capabilities: UI_CAPABILITY, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new StreamableHTTPClientTransport(url));
      view = await renderToolUi(client, { tool: 'show_weather', arguments: { city: 'Lisbon' }, executablePath });
    });
    afterAll(async () => {
      await view?.close();
      await client?.close();
    });

    it('renders the delivered tool result in the sandboxed view', async () => {
      const { temperatureC } = weatherFor('Lisbon');
      expect(view.uri).toBe(CARD_URI);
      await expect(view.frame.locator('#status').textContent()).resolves.toBe('ready');
      expect(await view.frame.locator('#city').textContent()).toBe('Lisbon');
      expect(await view.frame.locator('#temp').textContent()).toBe(String(temperatureC));
      expect(await view.page.locator('iframe').getAttribute('sandbox')).toBe('allow-scripts');
    });

    it('calls get_weather through the host and the server when #refresh is clicked', async () => {
      served.length = 0;
      await view.frame.locator('#refresh').click();
      await view.frame.locator('#status', { hasText: 'refreshed' }).waitFor();
      expect(await view.frame.locator('#temp').textContent()).toBe(String(weatherFor('Lisbon').temperatureC));
      expect(view.requests).toEqual([
        {
          method: 'tools/call',
          params: expect.objectContaining({ name: 'get_weather', arguments: { city: 'Lisbon' } }),
        },
      ]);
      expect(served).toEqual(['tools/call get_weather']);
    });

    it('runs the view under the policy from _meta.ui.csp: it cannot reach the server itself', async () => {
      expect(view.meta.csp).toEqual({ connectDomains: [], resourceDomains: [] });
      expect(view.contentSecurityPolicy).toContain("connect-src 'none'");
      served.length = 0;
      const frame = view.page.frames().find((f) => f !== view.page.mainFrame())!;
      // Chromium reports each refusal on the console as it refuses, naming the directive.
      const refusal = view.page.waitForEvent('console', (message) =>
        message.text().includes('Content Security Policy'),
      );
      const fetched = await frame.evaluate(
        (target) =>
          fetch(target, { method: 'POST', body: '{}' }).then(
            () => 'fetched',
            () => 'refused',
          ),
        url.href,
      );
      expect(fetched).toBe('refused');
      expect((await refusal).text()).toBe(
        `Connecting to '${url.href}' violates the following Content Security Policy directive: "connect-src 'none'". The action has been blocked.`,
      );
      expect(served).toEqual([]);
    });
  });

  it('renders and refreshes the same through a 2025-era official client', async () => {
    const client = new ClientV1({ name: 'apps-host-2025', version: '1.0.0' }, { capabilities: UI_CAPABILITY });
    await client.connect(new TransportV1(url));
    const view = await renderToolUi(client, { tool: 'show_weather', arguments: { city: 'Oslo' }, executablePath });
    try {
      const { temperatureC } = weatherFor('Oslo');
      await view.frame.locator('#status', { hasText: 'ready' }).waitFor();
      expect(await view.frame.locator('#temp').textContent()).toBe(String(temperatureC));
      served.length = 0;
      await view.frame.locator('#refresh').click();
      await view.frame.locator('#status', { hasText: 'refreshed' }).waitFor();
      expect(served).toEqual(['tools/call get_weather']);
    } finally {
      await view.close();
      await client.close();
    }
  });

  it('renders a given result without calling the tool, through the kit client', async () => {
    served.length = 0;
    const view = await renderToolUi(createMcpTestClient(app, { clientCapabilities: UI_CAPABILITY }), {
      tool: 'show_weather',
      arguments: { city: 'Nowhere' },
      executablePath,
      result: {
        content: [{ type: 'text', text: 'Nowhere: 99 °C' }],
        structuredContent: { city: 'Nowhere', temperatureC: 99 },
      },
    });
    try {
      await view.frame.locator('#status', { hasText: 'ready' }).waitFor();
      expect(await view.frame.locator('#city').textContent()).toBe('Nowhere');
      expect(await view.frame.locator('#temp').textContent()).toBe('99');
      expect(served).toEqual(['tools/list', `resources/read ${CARD_URI}`]);
    } finally {
      await view.close();
    }
  });
});
