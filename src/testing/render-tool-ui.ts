import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';
import { UI_MIME_TYPE, UI_RESOURCE_URI_META_KEY, type UiResourceMeta } from '../protocol/extensions/apps.js';
import type { CallToolResult, ReadResourceResult, ToolDefinition } from '../protocol/mcp-types.js';
import { optionalImport } from '../server/schema/optional-import.js';
import { requireChromium } from './find-chromium.js';
import { McpTestClient } from './mcp-test-client.js';
import { uiContentSecurityPolicy, withContentSecurityPolicy } from '../server/apps/ui-content-security-policy.js';

/**
 * How the host reaches the server: the kit's `McpTestClient`, or anything with the official client's three
 * methods (`Client` from `@modelcontextprotocol/client`, connected over HTTP as a real host is).
 */
export interface UiHostConnection {
  listTools(params?: { cursor?: string }): Promise<{ tools: ToolDefinition[]; nextCursor?: string }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
}

export interface RenderToolUiOptions {
  /** The tool whose UI to render. */
  tool: string;
  /** Its arguments: sent to the view as the tool input, and to the server unless `result` is given. */
  arguments?: Record<string, unknown>;
  /** The result to render; default: the server's answer to calling the tool with `arguments`. */
  result?: CallToolResult;
  /**
   * Chromium to run. Default: `CHROMIUM_PATH`, else the newest of Playwright's installed browsers
   * (`PLAYWRIGHT_BROWSERS_PATH` or Playwright's cache folder), else the system's Chromium or Google Chrome.
   */
  executablePath?: string;
  /** How long the page waits for the view (connecting, and each locator of the test's). Default 30 s. */
  timeoutMs?: number;
}

/** A tool's UI running in a sandboxed iframe of a real `AppBridge` host page, in headless Chromium. */
export interface RenderedToolUi {
  /** The host page. */
  page: Page;
  /** The view's iframe: `view.frame.locator('#temp')`. */
  frame: FrameLocator;
  /** The `ui://` resource the tool names, as read from the server. */
  uri: string;
  html: string;
  meta: UiResourceMeta;
  /** The policy the host page put on the view, from `meta.csp`. */
  contentSecurityPolicy: string;
  /** The result the view was given. */
  result: CallToolResult;
  /** Every request the view made through the host (`tools/call`, `resources/read`), in order. */
  requests: Array<{ method: string; params: Record<string, unknown> }>;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

const BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * The host page's script, bundled once per process: the real ext-apps `AppBridge` over `postMessage` to an
 * `<iframe sandbox="allow-scripts" srcdoc>` (an opaque origin, as hosts give views), with the view's requests
 * forwarded to the server through the test process (`window.mcpForward`).
 */
const HOST_SCRIPT = `
import { AppBridge, PostMessageTransport, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';
window.renderUi = async ({ html, permissions, toolInput, toolResult }) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  const allow = buildAllowAttribute(permissions);
  if (allow) iframe.setAttribute('allow', allow);
  iframe.srcdoc = html;
  const bridge = new AppBridge(null, { name: 'nestjs-mcp-testing', version: '1.0.0' }, { serverTools: {}, serverResources: {} });
  bridge.oncalltool = (params) => window.mcpForward('tools/call', params);
  bridge.onreadresource = (params) => window.mcpForward('resources/read', params);
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  document.body.append(iframe);
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult);
};
`;
let hostBundle: Promise<string> | undefined;

/**
 * Renders a tool's UI as an MCP Apps host does and hands back the page to drive it: finds the tool's `ui://`
 * resource in `tools/list`, reads it, calls the tool (unless given a `result`), and runs the document in a
 * sandboxed iframe under the Content-Security-Policy its `_meta.ui.csp` allows, connected to a real `AppBridge`
 * that forwards the view's `tools/call` and `resources/read` to the server. Needs the optional packages
 * `playwright-core`, `esbuild` and `@modelcontextprotocol/ext-apps`, and a Chromium (see `executablePath` for where it
 * looks; Playwright's own download works, as do the system's Chromium and Google Chrome). Call `close()` when done.
 */
export async function renderToolUi(
  connection: McpTestClient | UiHostConnection,
  options: RenderToolUiOptions,
): Promise<RenderedToolUi> {
  const host = connection instanceof McpTestClient ? kitConnection(connection) : connection;
  const tool = await findTool(host, options.tool);
  if (!tool) throw new Error(`renderToolUi: the server lists no tool "${options.tool}"`);
  const uri = uiResourceUriOf(tool);
  if (!uri) throw new Error(`renderToolUi: tool "${options.tool}" has no UI (_meta.ui.resourceUri)`);
  const read = (await host.readResource({ uri })) as ReadResourceResult;
  const item = read.contents?.find((c) => c.uri === uri) ?? read.contents?.[0];
  if (!item || !('text' in item) || item.mimeType !== UI_MIME_TYPE) {
    throw new Error(`renderToolUi: ${uri} is not a ${UI_MIME_TYPE} document`);
  }
  const meta = (item._meta?.ui ?? {}) as UiResourceMeta;
  const toolInput = options.arguments ?? {};
  const result =
    options.result ?? ((await host.callTool({ name: options.tool, arguments: toolInput })) as CallToolResult);
  const contentSecurityPolicy = uiContentSecurityPolicy(meta.csp);

  // A failed bundle (a package missing) is not kept: the next call tries again.
  const script = await (hostBundle ??= bundleHostScript().catch((error: unknown) => {
    hostBundle = undefined;
    throw error;
  }));
  const { chromium } = await optionalImport<typeof import('playwright-core')>('playwright-core', 'renderToolUi');
  const executablePath = options.executablePath ?? requireChromium('renderToolUi');
  const profile = await mkdtemp(join(tmpdir(), 'nestjs-mcp-ui-'));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: BROWSER_ARGS,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(options.timeoutMs ?? 30_000);
    const requests: RenderedToolUi['requests'] = [];
    await page.exposeFunction('mcpForward', async (method: string, params: Record<string, unknown>) => {
      requests.push({ method, params });
      if (method === 'tools/call')
        return host.callTool(params as { name: string; arguments?: Record<string, unknown> });
      return host.readResource(params as { uri: string });
    });
    await page.setContent(`<!doctype html><html><body><script>${script}</script></body></html>`);
    await page.evaluate((args) => (globalThis as any).renderUi(args), {
      html: withContentSecurityPolicy(item.text, contentSecurityPolicy),
      permissions: meta.permissions,
      toolInput,
      toolResult: result,
    });
    const browser = context;
    return {
      page,
      frame: page.frameLocator('iframe'),
      uri,
      html: item.text,
      meta,
      contentSecurityPolicy,
      result,
      requests,
      close: async () => {
        await browser.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await context?.close();
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}

async function findTool(host: UiHostConnection, name: string): Promise<ToolDefinition | undefined> {
  let cursor: string | undefined;
  do {
    const page = await host.listTools(cursor === undefined ? undefined : { cursor });
    const tool = page.tools.find((t) => t.name === name);
    if (tool) return tool;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return undefined;
}

/** The UI a tool names: `_meta.ui.resourceUri`, or the flat key of the first drafts. */
function uiResourceUriOf(tool: ToolDefinition): string | undefined {
  const ui = tool._meta?.ui as { resourceUri?: unknown } | undefined;
  const uri = ui?.resourceUri ?? tool._meta?.[UI_RESOURCE_URI_META_KEY];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

async function bundleHostScript(): Promise<string> {
  const esbuild = await optionalImport<typeof import('esbuild')>('esbuild', 'renderToolUi');
  const bundle = await esbuild.build({
    stdin: { contents: HOST_SCRIPT, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return bundle.outputFiles[0].text.replaceAll('</script', '<\\/script');
}

function kitConnection(client: McpTestClient): UiHostConnection {
  const unwrap = async <R>(exchange: Promise<{ result?: R; error?: { message: string } }>): Promise<R> => {
    const { result, error } = await exchange;
    if (error || !result) throw new Error(error?.message ?? 'no result');
    return result;
  };
  return {
    listTools: (params) => unwrap(client.listTools(params?.cursor)),
    callTool: ({ name, arguments: args }) => unwrap(client.callTool(name, args)),
    readResource: ({ uri }) => unwrap(client.readResource(uri)),
  };
}
