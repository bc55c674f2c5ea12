import 'reflect-metadata';
import { Inject, Injectable, Module, type INestApplication, type OnModuleInit } from '@nestjs/common';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { MCPServer, McpModule } from '../src/index.js';
import { testChromium } from '../test/support/test-chromium.js';
import { ADD_TOOL, toolDefinitions } from './fixtures.js';
import { createNestApp } from './servers/nest-app.js';

/**
 * The playground page in Chromium against a server of 10 and one of 1,000 tools: two tools picked in turn, then
 * `add` called again and again; each time, the milliseconds from the click until the panel or the result is in
 * the page and laid out (not painted: a frame waits for the screen's next refresh, which would round every figure
 * to it), measured in the page (`performance.now()`). The medians of both sizes,
 * interleaved, and their ratio: a panel or a result that renders without the tool list costs about the same at
 * either size. The main thread's time (DevTools' `TaskDuration`, until a frame after the click is drawn) adds
 * what painting a long list costs.
 */
export interface PlaygroundRenderRow {
  tools: number;
  /** Picking a tool in the list until its panel is laid out (`ms`), and the main thread's time for it. */
  pick: { ms: number; mainThreadMs: number };
  /** Pressing Call until the result is laid out, and the main thread's time for it. */
  call: { ms: number; mainThreadMs: number };
}

const SIZES = [10, 1_000];

async function startServer(tools: number): Promise<{ app: INestApplication; url: string }> {
  @Injectable()
  class PlaygroundTools implements OnModuleInit {
    constructor(@Inject(MCPServer) private readonly server: MCPServer) {}
    onModuleInit(): void {
      for (const tool of toolDefinitions(tools)) {
        const handler = tool.name === ADD_TOOL.name ? ({ a, b }: { a: number; b: number }) => a + b : () => 'ok';
        this.server.registerTool(tool.name, tool.description, tool.inputSchema, handler);
      }
    }
  }
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'bench',
        version: '1.0.0',
        playground: true,
        observability: { logFailedCalls: false },
      }),
    ],
    providers: [PlaygroundTools],
  })
  class PlaygroundBenchModule {}
  const app = await createNestApp(PlaygroundBenchModule, 'fastify');
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}/mcp/playground` };
}

/** Opens the page and waits for its whole tool list. */
async function openPage(browser: Browser, url: string, tools: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  await page.goto(url);
  await page
    .locator('nav li')
    .nth(tools - 1)
    .waitFor();
  return page;
}

/**
 * Clicks the button `button` (an expression in the page) and resolves with the milliseconds until `done` (one
 * too) holds in `main`, laid out. In the page's own language, as a string: the bench is compiled without the
 * DOM's types.
 */
function timeClick(page: Page, button: string, done: string): Promise<number> {
  return page.evaluate(`new Promise((resolve, reject) => {
  const main = document.querySelector('main');
  const button = ${button};
  let started = 0;
  const observer = new MutationObserver(() => {
    if (!(${done})) return;
    observer.disconnect();
    document.body.getBoundingClientRect();
    resolve(performance.now() - started);
  });
  observer.observe(main, { childList: true, subtree: true, characterData: true });
  setTimeout(() => reject(new Error('nothing shown within 10 s')), 10000);
  started = performance.now();
  button.click();
})`) as Promise<number>;
}

/** Presses Call until the result shows `5`: the previous result goes first (the call shows it is running). */
function timeOneCall(page: Page): Promise<number> {
  return timeClick(
    page,
    `[...main.querySelectorAll('button')].find((b) => b.textContent === 'Call')`,
    `main.querySelector('[data-testid="result"]')?.textContent?.includes('5') === true`,
  );
}

/** Picks the tool named `name` in the list until its panel shows. */
function timeOnePick(page: Page, name: string): Promise<number> {
  const quoted = JSON.stringify(name);
  return timeClick(
    page,
    `[...document.querySelectorAll('nav button')].find((b) => b.textContent === ${quoted})`,
    `main.querySelector('h2')?.firstChild?.textContent?.trim() === ${quoted}`,
  );
}

/** The page's main-thread time so far (tasks: script, style, layout, paint), in ms, from the DevTools protocol. */
async function mainThreadMs(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((metric) => metric.name === 'TaskDuration')!.value * 1000;
}

/**
 * `runs` of `time(page)` per page, interleaved, after `warm` unmeasured: the medians per page of the ms `time`
 * read, and of the page's main-thread time from the click until a frame after it was drawn.
 */
async function interleaved(
  pages: Array<{ page: Page; cdp: CDPSession }>,
  runs: number,
  warm: number,
  time: (page: Page, run: number) => Promise<number>,
): Promise<Array<{ ms: number; mainThreadMs: number }>> {
  const samples = pages.map(() => ({ ms: [] as number[], mainThreadMs: [] as number[] }));
  for (let run = 0; run < warm + runs; run++) {
    for (const [i, { page, cdp }] of pages.entries()) {
      const before = await mainThreadMs(cdp);
      const ms = await time(page, run);
      await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 20)))');
      const used = (await mainThreadMs(cdp)) - before;
      if (run < warm) continue;
      samples[i].ms.push(ms);
      samples[i].mainThreadMs.push(used);
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return samples.map((s) => ({ ms: median(s.ms), mainThreadMs: median(s.mainThreadMs) }));
}

export async function measurePlaygroundRender(smoke: boolean): Promise<PlaygroundRenderRow[]> {
  const servers = await Promise.all(SIZES.map(startServer));
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: await testChromium(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    const pages: Array<{ page: Page; cdp: CDPSession }> = [];
    for (const [i, { url }] of servers.entries()) {
      const page = await openPage(browser, url, SIZES[i]);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      pages.push({ page, cdp });
    }
    const [runs, warm] = smoke ? [2, 0] : [40, 5];
    // Two tools picked in turn, then `add`, whose form is filled in once and called again and again.
    const picks = await interleaved(pages, runs, warm, (page, run) =>
      timeOnePick(page, run % 2 ? 'search_2' : 'search_3'),
    );
    for (const { page } of pages) {
      await page.locator('nav').getByText('add', { exact: true }).click();
      await page.locator('input[name="a"]').fill('2');
      await page.locator('input[name="b"]').fill('3');
    }
    const calls = await interleaved(pages, runs, warm, timeOneCall);
    return SIZES.map((tools, i) => ({ tools, pick: picks[i], call: calls[i] }));
  } finally {
    await browser?.close();
    await Promise.all(servers.map(({ app }) => app.close()));
  }
}

export function printPlaygroundRender(rows: PlaygroundRenderRow[], fmt: (n: number, digits?: number) => string): void {
  console.log(
    '\nThe playground in Chromium, the same page with 10 and with 1,000 tools listed: a tool picked in the list ' +
      'until its panel is laid out, and a call of `add` from the press of Call until its result is laid out; ' +
      "beside each, the main thread's time (script, style, layout, paint) until a frame after it is drawn " +
      '(medians of interleaved runs):\n',
  );
  console.log(
    '| tools listed | pick ms | main thread ms | ÷ 10 tools (ms; main thread) | call ms | main thread ms | ÷ 10 tools (ms; main thread) |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  const [first] = rows;
  const cells = (of: (row: PlaygroundRenderRow) => { ms: number; mainThreadMs: number }, row: PlaygroundRenderRow) =>
    `${fmt(of(row).ms, 1)} | ${fmt(of(row).mainThreadMs, 1)} | ` +
    `${fmt(of(row).ms / of(first).ms, 2)}; ${fmt(of(row).mainThreadMs / of(first).mainThreadMs, 2)}`;
  for (const row of rows)
    console.log(`| ${fmt(row.tools)} | ${cells((r) => r.pick, row)} | ${cells((r) => r.call, row)} |`);
}

/** What a part of the playground's scripts weighs: in the page's own, and in the view bridge it loads for views. */
export interface PlaygroundWeightRow {
  part: string;
  /** Bytes of it in the page's inline script, loaded with every visit. */
  page: number;
  /** Bytes of it in `bridge.js` (ext-apps' `AppBridge`), loaded only to show an MCP Apps view. */
  bridge: number;
}

/** The playground's two scripts by part (package, or the page's own code), from esbuild's metafile of the build. */
export async function measurePlaygroundWeight(): Promise<{
  page: number;
  bridge: number;
  rows: PlaygroundWeightRow[];
}> {
  // The package build's own script, beside build/ (it is not compiled into it); run from the repository's root.
  const script = new URL('../../scripts/build-playground.mjs', import.meta.url).href;
  const { bundlePlayground } = (await import(script)) as typeof import('../scripts/build-playground.mjs');
  const { metafile } = await bundlePlayground({ metafile: true });
  const outputs = Object.entries(metafile!.outputs);
  const of = (name: 'page' | 'bridge') => outputs.find(([path]) => path.endsWith(`/${name}.js`))![1];
  const parts = new Map<string, PlaygroundWeightRow>();
  for (const name of ['page', 'bridge'] as const) {
    for (const [file, { bytesInOutput }] of Object.entries(of(name).inputs)) {
      const part = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? 'the page itself';
      const row = parts.get(part) ?? { part, page: 0, bridge: 0 };
      row[name] += bytesInOutput;
      parts.set(part, row);
    }
  }
  const rows = [...parts.values()].sort((a, b) => b.page + b.bridge - (a.page + a.bridge));
  return { page: of('page').bytes, bridge: of('bridge').bytes, rows };
}

export function printPlaygroundWeight(
  weight: { page: number; bridge: number; rows: PlaygroundWeightRow[] },
  fmt: (n: number, digits?: number) => string,
): void {
  console.log(
    `\nThe playground's scripts by part (minified; esbuild's metafile): the page's own, ${fmt(weight.page / 1024)} KB, ` +
      `loaded with every visit, and the MCP Apps view bridge (ext-apps' AppBridge), ${fmt(weight.bridge / 1024)} KB, ` +
      'loaded only to show a view:\n',
  );
  console.log('| part | page KB | view bridge KB |');
  console.log('|---|---:|---:|');
  for (const row of weight.rows)
    console.log(`| ${row.part} | ${fmt(row.page / 1024, 1)} | ${fmt(row.bridge / 1024, 1)} |`);
}

// Alone: `node build/bench/playground-render.js` (BENCH_SMOKE=1 for a quick check).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  printPlaygroundWeight(await measurePlaygroundWeight(), fmt);
  printPlaygroundRender(await measurePlaygroundRender(process.env.BENCH_SMOKE === '1'), fmt);
}
