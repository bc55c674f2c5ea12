import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Module, type CanActivate, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { McpModule } from '../../src/index.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { AppModule as AppsExampleModule } from '../../examples/apps/app.module.js';
import { weatherFor } from '../../examples/apps/weather-report.js';
import { buildPlayground } from '../../scripts/build-playground.mjs';
import { buildWidget, WIDGETS } from '../../scripts/build-widgets.mjs';
import { HTTP_ADAPTERS } from '../support/create-app.js';
import { testChromium } from '../support/test-chromium.js';
import {
  PlaygroundAuthModule,
  PlaygroundExampleModule,
  PlaygroundThousandToolsModule,
  PlaygroundVersionedModule,
  startApp,
  versioned,
} from '../support/playground-app.js';

// Chromium starts per adapter; on a shared 2-core box that alone can pass Jest's default.
jest.setTimeout(120_000);

/** Where the screenshots go (gitignored): test artefacts for a human to look at. */
const SHOTS = join(process.cwd(), 'test-artifacts', 'playground');

/**
 * The playground page, built by the package build into dist/playground, in the machine's Chromium (`testChromium`)
 * against the real endpoint, on both adapters: the fixed contract (each tool an element named by its text, inputs named after the
 * arguments, a `Call` button, the answer in `data-testid="result"`), then each kind of exchange the page handles.
 */
describe.each(HTTP_ADAPTERS)('the playground in Chromium (%s)', (adapter) => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    await buildPlayground('dist/playground');
    browser = await chromium.launch({
      executablePath: await testChromium(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  });
  afterAll(() => browser?.close());
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.setDefaultTimeout(30_000);
  });
  afterEach(() => page?.close());

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${adapter}-${name}.png`), fullPage: true });
  const tool = (name: string) => page.locator('nav').getByText(name, { exact: true });
  const result = () => page.getByTestId('result');

  describe('on the example app', () => {
    let app: INestApplication;
    let origin: string;
    let served: string[];

    beforeAll(async () => ({ app, origin, served } = await startApp(PlaygroundExampleModule, adapter)));
    afterAll(() => app?.close());

    it("lists the example app's tools, each opening its form", async () => {
      await page.goto(`${origin}/mcp/playground`);
      for (const name of ['get_weather', 'add', 'countdown', 'get_forecast', 'delete_note', 'build_report'])
        await tool(name).waitFor();
      await tool('add').click();
      await page.locator('input[name="a"]').waitFor();
      await page.locator('input[name="b"]').waitFor();
      await shot('tools');
    });

    it('calls a tool with its form and shows the result', async () => {
      await page.goto(`${origin}/mcp/playground`);
      await tool('get_weather').click();
      await page.locator('input[name="city"]').fill('Paris');
      served.length = 0;
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await result().getByText('"conditions": "windy"').waitFor();
      expect(await result().textContent()).toContain('"temperatureC": 13');
      expect(served).toEqual(['tools/call get_weather']);
      await shot('call');
    });

    it("shows the server's validation error", async () => {
      await page.goto(`${origin}/mcp/playground`);
      await tool('add').click();
      await page.locator('input[name="a"]').fill('2');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await result().getByText('Missing required argument: b', { exact: false }).waitFor();
      expect(await result().getAttribute('class')).toBe('result is-error');
      await shot('validation-error');
    });

    it('keeps the progress a tool reported on the way with its result', async () => {
      await page.goto(`${origin}/mcp/playground`);
      await tool('countdown').click();
      await page.locator('input[name="n"]').fill('5');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await result().getByText('Lift-off!').waitFor();
      expect(await result().textContent()).toMatch(/5 \/ 5 0 to go/);
    });

    it('answers an input_required confirmation in the page', async () => {
      await page.goto(`${origin}/mcp/playground`);
      await tool('delete_note').click();
      await page.locator('input[name="title"]').fill('groceries');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      const questions = page.getByTestId('input-requests');
      await questions.getByText('Delete "groceries"?').waitFor();
      await questions.locator('input[name="confirm"]').check();
      await shot('input-required');
      await questions.getByRole('button', { name: 'Send answers' }).click();
      await result().getByText('Deleted "groceries"').waitFor();
    });

    it('follows a task to its end, with its status', async () => {
      await page.goto(`${origin}/mcp/playground`);
      await tool('build_report').click();
      await page.locator('input[name="steps"]').fill('3');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await page.getByTestId('task-status').getByText('working').waitFor();
      await shot('task');
      await result().getByText('Report ready after 3 steps').waitFor();
    });

    it("lists the example app's event and streams its occurrences as get_weather runs, until stopped", async () => {
      await page.goto(`${origin}/mcp/playground`);
      await page.locator('nav').getByText('weather.checked', { exact: true }).click();
      const panel = page.getByTestId('event-panel');
      await panel.getByText('Someone checked the weather of a city').waitFor();
      await panel.getByRole('button', { name: 'Stream', exact: true }).click();
      const stream = page.getByTestId('event-stream');
      await stream.locator('li[data-method="notifications/events/active"]').waitFor();
      // Another client runs the tool; the page's stream shows the occurrence it published.
      const body = mcpMessage('tools/call', { name: 'get_weather', arguments: { city: 'Lima' } });
      await fetch(`${origin}/mcp`, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
      const occurrence = stream.locator('li[data-method="notifications/events/event"]');
      await occurrence.getByText('"city":"Lima"', { exact: false }).waitFor();
      await shot('event-stream');
      await panel.getByRole('button', { name: 'Stop', exact: true }).click();
      await panel.getByRole('button', { name: 'Stream', exact: true }).waitFor();
      expect(await occurrence.count()).toBe(1);
    });

    it('reads a resource template and renders a prompt', async () => {
      await page.goto(`${origin}/mcp/playground`);
      await page.locator('nav').getByText('forecast', { exact: true }).click();
      await page.locator('input[name="city"]').fill('Oslo');
      await page.getByRole('button', { name: 'Read', exact: true }).click();
      await result().getByText('weather://forecast/Oslo').waitFor();
      await page.locator('nav').getByText('weather_report', { exact: true }).click();
      await page.locator('input[name="city"]').fill('Oslo');
      await page.getByRole('button', { name: 'Get', exact: true }).click();
      await result().getByText('Write a two-line weather report for Oslo.').waitFor();
    });

    it('serves the page and the view shell under their own policies', async () => {
      const response = await fetch(`${origin}/mcp/playground`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const policy = response.headers.get('content-security-policy')!;
      expect(policy).toMatch(
        /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+' 'strict-dynamic' 'self'; style-src 'sha256-/,
      );
      expect(policy).toContain("connect-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      const shell = await fetch(`${origin}/mcp/playground/frame`);
      expect(shell.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts;/);
    });
  });

  describe('on the MCP Apps example', () => {
    let app: INestApplication;
    let origin: string;
    let served: string[];

    beforeAll(async () => {
      await buildWidget(WIDGETS[0]);
      ({ app, origin, served } = await startApp(AppsExampleModule, adapter));
    });
    afterAll(() => app?.close());

    it("renders the tool's view through the AppBridge, whose button calls a tool", async () => {
      const scripts: string[] = [];
      const requested = (request: { url(): string; resourceType(): string }) => {
        if (request.resourceType() === 'script') scripts.push(request.url());
      };
      page.on('request', requested);
      await page.goto(`${origin}/mcp/playground`);
      await tool('show_weather').click();
      await page.locator('input[name="city"]').fill('Lisbon');
      // The view bridge (ext-apps and its zod) is loaded to show a view, not with the page.
      expect(scripts).toEqual([]);
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      const view = page.frameLocator('iframe.view');
      await view.locator('#status', { hasText: 'ready' }).waitFor();
      page.off('request', requested);
      expect(scripts).toEqual([`${origin}/mcp/playground/bridge.js`]);
      expect(await view.locator('#temp').textContent()).toBe(String(weatherFor('Lisbon').temperatureC));
      expect(await page.locator('iframe.view').getAttribute('sandbox')).toBe('allow-scripts');
      served.length = 0;
      await view.locator('#refresh').click();
      await view.locator('#status', { hasText: 'refreshed' }).waitFor();
      await page.getByTestId('view-requests').getByText('view → tools/call get_weather').waitFor();
      expect(served).toEqual(['tools/call get_weather']);
      await shot('widget');
    });
  });

  describe('on an endpoint with auth', () => {
    let app: INestApplication;
    let origin: string;

    beforeAll(async () => ({ app, origin } = await startApp(PlaygroundAuthModule, adapter)));
    afterAll(() => app?.close());

    it('shows the 401 with its challenge, then calls with a token', async () => {
      await page.goto(`${origin}/mcp/playground`);
      const challenge = page.getByTestId('auth-challenge');
      await challenge.getByText('HTTP 401', { exact: false }).waitFor();
      expect(await challenge.getByTestId('challenge').textContent()).toContain('Bearer');
      expect(await challenge.textContent()).toContain('resource_metadata=');
      await shot('auth-challenge');
      await page.getByLabel('Bearer token').fill('secret-token');
      await page.getByRole('button', { name: 'Use token' }).click();
      await tool('get_weather').click();
      expect(await challenge.count()).toBe(0);
      await page.locator('input[name="city"]').fill('Paris');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await result().getByText('"temperatureC": 13').waitFor();
    });
  });

  describe('behind a global prefix and URI versioning', () => {
    let app: INestApplication;
    let origin: string;

    beforeAll(async () => ({ app, origin } = await startApp(PlaygroundVersionedModule, adapter, versioned)));
    afterAll(() => app?.close());

    it('serves the page beside the endpoint and calls it there', async () => {
      expect((await fetch(`${origin}/mcp/playground`)).status).toBe(404);
      await page.goto(`${origin}/api/v1/mcp/playground`);
      await tool('get_weather').click();
      await page.locator('input[name="city"]').fill('Paris');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await result().getByText('"temperatureC": 13').waitFor();
    });
  });

  describe('with a thousand tools', () => {
    let app: INestApplication;
    let origin: string;

    beforeAll(async () => ({ app, origin } = await startApp(PlaygroundThousandToolsModule, adapter)));
    afterAll(() => app?.close());

    it('keeps the list where it was scrolled when a tool far down it is picked and called', async () => {
      await page.goto(`${origin}/mcp/playground`);
      await tool('tool_999').waitFor();
      const nav = page.locator('nav');
      await nav.evaluate((element) => element.scrollTo(0, element.scrollHeight));
      const scrolled = await nav.evaluate((element) => element.scrollTop);
      expect(scrolled).toBeGreaterThan(0);
      await tool('tool_998').click();
      await page.locator('input[name="n"]').fill('41');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await result().getByText('42').waitFor();
      expect(await nav.evaluate((element) => element.scrollTop)).toBe(scrolled);
      // The panel and its result are in view without scrolling back up to them.
      const heading = await page.locator('main h2').boundingBox();
      expect(heading!.y).toBeGreaterThanOrEqual(0);
      expect(heading!.y).toBeLessThan(800);
      expect(await result().isVisible()).toBe(true);
      await shot('thousand-tools');
    });
  });
});

@Injectable()
class DevHeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    return req.headers['x-dev'] === 'yes';
  }
}

describe('the playground at start-up', () => {
  it('says where it is once the app listens, and is served under NODE_ENV=production when forced', async () => {
    await buildPlayground('dist/playground');
    const lines: string[] = [];
    const quiet = () => undefined;
    const logger = { log: (message: unknown) => lines.push(String(message)), error: quiet, warn: quiet };
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'forced',
          version: '1.0.0',
          playground: { enabled: true, allowInProduction: true },
        }),
      ],
    })
    class ForcedModule {}
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    const app = await NestFactory.create(ForcedModule, { logger }).finally(() => (process.env.NODE_ENV = before));
    try {
      await app.listen(0, '127.0.0.1');
      const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      expect(lines).toContain(`MCP playground (development only): ${origin}/mcp/playground`);
      expect((await fetch(`${origin}/mcp/playground`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("puts the page behind the app's global guards, as the endpoint is", async () => {
    await buildPlayground('dist/playground');
    @Module({
      imports: [McpModule.forRoot({ name: 'guarded', version: '1.0.0', playground: true })],
      providers: [{ provide: APP_GUARD, useClass: DevHeaderGuard }],
    })
    class GuardedModule {}
    const { app, origin } = await startApp(GuardedModule, 'express');
    try {
      expect((await fetch(`${origin}/mcp/playground`)).status).toBe(403);
      expect((await fetch(`${origin}/mcp/playground`, { headers: { 'x-dev': 'yes' } })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
