import { jest } from '@jest/globals';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { inspectorCli } from './support/inspector-cli.js';
import { installApart } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { erasOfToolCalls, serverErrors, sessionIds, sessionUse } from './support/wire-log.js';

/**
 * The MCP Inspector 2.12 CLI, a real process per command. Given a URL it speaks the 2025 era by default
 * (`initialize 2025-11-25`, then `logging/setLevel` since the server has logging); `--protocol-era modern`
 * makes it probe `server/discover` and speak 2026-07-28.
 */
const LEGACY = { era: 'legacy', version: '2025-11-25', header: '2025-11-25' } as const;
const ERAS = [
  { label: 'default (legacy)', args: [], legacyMode: 'stateless', era: LEGACY },
  {
    label: '--protocol-era modern',
    args: ['--protocol-era', 'modern'],
    legacyMode: 'stateless',
    era: { era: 'modern', version: '2026-07-28', header: '2026-07-28' },
  },
  // The server gives 2025-era clients sessions: each run of the CLI is one, and carries it.
  { label: 'default (legacy), against legacy.mode "stateful"', args: [], legacyMode: 'stateful', era: LEGACY },
] as const;

jest.setTimeout(120_000);

// The CLI is installed apart on first use: the install alone may take longer than a case.
beforeAll(() => installApart('inspector'), 600_000);

describe.each(ERAS)('MCP Inspector 2.12.0 CLI, $label', ({ args, legacyMode, era }) => {
  let app: ClientsApp;
  let proxy: RecordingProxy;

  beforeAll(async () => {
    app = await startClientsApp('express', legacyMode);
    proxy = await RecordingProxy.start(app.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await app?.close();
  });

  it('lists the tools', async () => {
    const output = await inspectorCli(proxy.url, [...args, '--method', 'tools/list']);
    expect((output.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  });

  it('calls a tool', async () => {
    const output = await inspectorCli(proxy.url, [
      ...args,
      '--method',
      'tools/call',
      '--tool-name',
      'greet',
      '--tool-arg',
      'name=Ada',
    ]);
    expect((output.result as { content: unknown }).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it(`used the ${era.era} era at ${era.version}, with a session only when the server mints one`, () => {
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([era]);
    if (legacyMode === 'stateless') expect(sessionIds(proxy.exchanges)).toEqual([]);
    else {
      // One session per run (two runs), each carried on every later message of its run.
      const { minted, carried, toolCalls } = sessionUse(proxy.exchanges);
      expect(new Set(minted).size).toBe(2);
      expect(carried).toEqual(minted);
      expect(toolCalls).toEqual([minted[1]]);
    }
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});
