import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { runApartClient } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { scriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { legacyWire } from './support/wire-log.js';

interface Seen {
  tools: string[];
  /** The tool answers inside the agent's turn (the MCP result, as the model gets it). */
  toolResults: Array<{ toolName: string; output: unknown }>;
  reply: string;
  /** What the tools' `execute` returned for the direct calls: the MCP result. */
  results: unknown[];
  asked: string[];
}

/**
 * VoltAgent (`@voltagent/core` 2.10.0, on SDK 1.x, the 2025 era), installed apart with the `ai` 6 it needs
 * (installed-apart/voltagent; the project pins other majors of the AI SDK) and run on Node 22: its
 * `MCPConfiguration` turns the server's tools into tools of an `Agent` whose model, an OpenAI-compatible chat
 * API, is a scripted stand-in (tools named `<server>_<tool>`, as VoltAgent names them); its client's `elicitation` handler answers `elicitation/create`.
 */
describe('VoltAgent 2.10.0 over Streamable HTTP', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let model: ScriptedModel;
  let seen: Seen;

  beforeAll(async () => {
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    model = await scriptedModel({ name: 'app_greet', arguments: { name: 'Ada' } });
    seen = await runApartClient<Seen>('voltagent', {
      server: { type: 'http', url: proxy.url },
      model: model.url,
      prompt: 'Greet Ada',
      calls: [{ name: 'app_delete_file', arguments: { path: '/tmp/a' } }],
    });
  }, 900_000);
  afterAll(async () => {
    await model?.close();
    await proxy?.close();
    await app?.close();
  });

  it("offers the server's tools to its model and calls the one it picks, in the agent loop", () => {
    const names = TOOL_NAMES.map((name) => `app_${name}`);
    expect(seen.tools).toEqual(names);
    expect(model.requests[0].tools!.map((tool) => tool.function.name)).toEqual(names);
    expect(seen.toolResults).toEqual([
      { toolName: 'app_greet', output: { content: [{ type: 'text', text: 'Hello, Ada!' }] } },
    ]);
    expect(seen.reply).toContain('Hello, Ada!');
  });

  it('answers an elicitation through its elicitation handler, on the call stream, with no session', () => {
    expect(seen.results).toEqual([{ content: [{ type: 'text', text: 'Deleted /tmp/a' }] }]);
    expect(seen.asked).toEqual(['Delete /tmp/a?']);
    expect(legacyWire(proxy.exchanges)).toEqual({
      serverRequests: ['elicitation/create'],
      replyStatuses: [202],
      eras: [{ era: 'legacy', version: '2025-11-25', header: '2025-11-25' }],
      sessionIds: [],
      serverErrors: [],
    });
  });
});

describe('VoltAgent 2.10.0 over stdio', () => {
  let model: ScriptedModel;
  let seen: Seen;

  beforeAll(async () => {
    await buildStdioEntries();
    model = await scriptedModel({ name: 'app_add', arguments: { a: 2, b: 40 } });
    seen = await runApartClient<Seen>('voltagent', {
      server: { type: 'stdio', command: process.execPath, args: [STDIO_ENTRIES.basic] },
      model: model.url,
      prompt: 'What is 2 + 40?',
      calls: [],
    });
  }, 900_000);
  afterAll(() => model?.close());

  it('launches the stdio server and calls the tool its model picks', () => {
    expect(seen.tools).toEqual(expect.arrayContaining(['app_get_weather', 'app_add', 'app_countdown']));
    expect(seen.toolResults).toEqual([{ toolName: 'app_add', output: { content: [{ type: 'text', text: '42' }] } }]);
    expect(seen.reply).toContain('42');
  });
});
