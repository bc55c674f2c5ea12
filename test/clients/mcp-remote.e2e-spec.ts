import { jest } from '@jest/globals';
import { Client } from 'mcp-sdk-v1/client/index.js';
import { StdioClientTransport } from 'mcp-sdk-v1/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from 'mcp-sdk-v1/types.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_ROOT, MODEL_REPLY, startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { installApart } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import {
  erasOfToolCalls,
  inputRequiredResults,
  postedReplyStatuses,
  serverErrors,
  serverRequests,
  sessionIds,
  sessionUse,
} from './support/wire-log.js';

/**
 * `mcp-remote` 0.15.1, the stdio↔HTTP bridge Claude Desktop and Cursor configs use, in its own process, with a
 * stdio SDK 1.32.2 client (the desktop host) in front. By default it passes the host's `initialize` through
 * (2025 era, server requests on the call stream); with `--protocol auto` it speaks 2026-07-28 to the server
 * and turns each input_required round back into requests to the host.
 */
const LEGACY = { era: 'legacy', version: '2025-11-25', header: '2025-11-25' } as const;
const MODES = [
  { label: 'default (legacy)', args: [], legacyMode: 'stateless', era: LEGACY },
  {
    label: '--protocol auto',
    args: ['--protocol', 'auto'],
    legacyMode: 'stateless',
    era: { era: 'modern', version: '2026-07-28', header: '2026-07-28' },
  },
  // The server gives 2025-era clients sessions: the bridge must carry the one it was given.
  { label: 'default (legacy), against legacy.mode "stateful"', args: [], legacyMode: 'stateful', era: LEGACY },
] as const;

jest.setTimeout(60_000);

describe.each(MODES)('mcp-remote 0.15.1 (stdio bridge), $label', ({ args, legacyMode, era }) => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let configDir: string;
  let client: Client;
  const asked: string[] = [];

  beforeAll(async () => {
    // Installed apart (installed-apart/mcp-remote), on first use.
    const mcpRemote = join(await installApart('mcp-remote'), 'node_modules/mcp-remote/dist/proxy.js');
    app = await startClientsApp('express', legacyMode);
    proxy = await RecordingProxy.start(app.url);
    configDir = await mkdtemp(join(tmpdir(), 'mcp-remote-'));
    client = new Client(
      { name: 'desktop-host', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {}, roots: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`elicitation: ${request.params.message}`);
      return { action: 'accept', content: { confirm: true } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push('sampling');
      return { role: 'assistant', content: { type: 'text', text: MODEL_REPLY }, model: 'test-model' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: CLIENT_ROOT, name: 'project' }] }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [mcpRemote, proxy.url, '--transport', 'http-only', ...args],
      env: { ...(process.env as Record<string, string>), MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: 'pipe',
    });
    await client.connect(transport);
  }, 600_000);
  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await app?.close();
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  it('lists and calls a tool', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it('completes an elicitation and a sampling round through the host', async () => {
    asked.length = 0;
    const deleted = await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/a' } });
    expect(deleted.content).toEqual([{ type: 'text', text: 'Deleted /tmp/a' }]);
    const sampled = await client.callTool({ name: 'ask_model', arguments: { question: 'Capital of France?' } });
    expect(sampled.content).toEqual([{ type: 'text', text: `The model said: ${MODEL_REPLY}` }]);
    expect(asked).toEqual(['elicitation: Delete /tmp/a?', 'sampling']);
  });

  it(`used the ${era.era} era at ${era.version} towards the server, with a session only when the server mints one`, () => {
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([era]);
    if (era.era === 'modern') {
      expect(inputRequiredResults(proxy.exchanges)).toBe(2);
      expect(serverRequests(proxy.exchanges)).toEqual([]);
    } else {
      expect(serverRequests(proxy.exchanges)).toEqual(['elicitation/create', 'sampling/createMessage']);
      expect(postedReplyStatuses(proxy.exchanges)).toEqual([202, 202]);
    }
    if (legacyMode === 'stateless') expect(sessionIds(proxy.exchanges)).toEqual([]);
    else {
      // It initializes twice (a first connection it then leaves, then the one it bridges): a session each, and
      // every later message, replies included, carried the one minted for it.
      const { minted, carried, toolCalls } = sessionUse(proxy.exchanges);
      expect(minted).toHaveLength(2);
      expect(carried).toEqual(minted);
      expect(toolCalls).toEqual([minted[1], minted[1], minted[1]]);
    }
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});
