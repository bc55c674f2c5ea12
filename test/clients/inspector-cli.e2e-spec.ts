import { jest } from '@jest/globals';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { inspectorCli } from './support/inspector-cli.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { erasOfToolCalls, serverErrors, sessionIds, sessionUse } from './support/wire-log.js';

/**
 * The MCP Inspector 2.12 CLI, a real process per command. Given a URL it speaks the 2025 era by default
 * (`initialize 2025-11-25`, then `logging/setLevel` since the server has logging); `--protocol-era modern`
 * makes it probe `server/discover` and speak 2026-07-28.
 */
const ERAS = [
  { label: 'default (legacy)', args: [], era: { era: 'legacy', version: '2025-11-25', header: '2025-11-25' } },
  {
    label: '--protocol-era modern',
    args: ['--protocol-era', 'modern'],
    era: { era: 'modern', version: '2026-07-28', header: '2026-07-28' },
  },
] as const;

jest.setTimeout(120_000);

describe.each(ERAS)('MCP Inspector 2.12.0 CLI, $label', ({ args, era }) => {
  let app: ClientsApp;
  let proxy: RecordingProxy;

  beforeAll(async () => {
    app = await startClientsApp();
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

  it(`used the ${era.era} era at ${era.version}, and never saw a session`, () => {
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([era]);
    expect(sessionIds(proxy.exchanges)).toEqual([]);
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});

describe('MCP Inspector 2.12.0 CLI, default (legacy), against legacy.mode "stateful"', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;

  beforeAll(async () => {
    app = await startClientsApp('express', 'stateful');
    proxy = await RecordingProxy.start(app.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await app?.close();
  });

  it('lists the tools and calls one, each run in a session of its own', async () => {
    const listed = await inspectorCli(proxy.url, ['--method', 'tools/list']);
    expect((listed.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const called = await inspectorCli(proxy.url, [
      '--method',
      'tools/call',
      '--tool-name',
      'greet',
      '--tool-arg',
      'name=Ada',
    ]);
    expect((called.result as { content: unknown }).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it('carried the Mcp-Session-Id the server minted on every later message, and only that', () => {
    const { minted, carried, toolCalls } = sessionUse(proxy.exchanges);
    expect(minted).toHaveLength(2);
    expect(new Set(minted).size).toBe(2);
    expect(carried).toEqual(minted);
    expect(toolCalls).toEqual([minted[1]]);
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([ERAS[0].era]);
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});
