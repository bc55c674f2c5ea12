import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { runApartClient } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { scriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { legacyWire } from './support/wire-log.js';

interface Seen {
  tools: string[];
  /** The tool answers inside the agent's turn. */
  toolResults: Array<{ status: string; content: string[] }>;
  reply: string;
  /** What `McpClient.callTool` returned for the direct calls: the MCP result. */
  results: Array<{ content: Array<{ type: string; text: string }>; isError?: boolean }>;
  asked: string[];
}

/**
 * Strands Agents (`@strands-agents/sdk` 1.19.0, on SDK 1.32.2, the 2025 era; Node 22 or later), installed apart
 * and run on Node 22 (installed-apart/strands): its `McpClient` as a tool source of an `Agent` whose model, an
 * OpenAI-style chat API, is a scripted stand-in; its `elicitationCallback` answers `elicitation/create`.
 */
describe('Strands Agents 1.19.0 over Streamable HTTP', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let model: ScriptedModel;
  let seen: Seen;

  beforeAll(async () => {
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    model = await scriptedModel({ name: 'greet', arguments: { name: 'Ada' } });
    seen = await runApartClient<Seen>('strands', {
      server: { url: proxy.url },
      model: model.url,
      prompt: 'Greet Ada',
      calls: [{ name: 'delete_file', arguments: { path: '/tmp/a' } }],
    });
  }, 900_000);
  afterAll(async () => {
    await model?.close();
    await proxy?.close();
    await app?.close();
  });

  it("offers the server's tools to its model and calls the one it picks, in the agent loop", () => {
    expect(seen.tools).toEqual(TOOL_NAMES);
    expect(model.requests[0].tools!.map((tool) => tool.function.name)).toEqual(TOOL_NAMES);
    expect(seen.toolResults).toEqual([{ status: 'success', content: ['Hello, Ada!'] }]);
    expect(seen.reply).toBe('The tool said: Hello, Ada!');
  });

  it('answers an elicitation through its elicitationCallback, on the call stream, with no session', () => {
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

describe('Strands Agents 1.19.0 over stdio', () => {
  let model: ScriptedModel;
  let seen: Seen;

  beforeAll(async () => {
    await buildStdioEntries();
    model = await scriptedModel({ name: 'add', arguments: { a: 2, b: 40 } });
    seen = await runApartClient<Seen>('strands', {
      server: { command: process.execPath, args: [STDIO_ENTRIES.basic] },
      model: model.url,
      prompt: 'What is 2 + 40?',
      calls: [],
    });
  }, 900_000);
  afterAll(() => model?.close());

  it('launches the stdio server and calls the tool its model picks', () => {
    expect(seen.tools).toEqual(expect.arrayContaining(['get_weather', 'add', 'countdown']));
    expect(seen.toolResults).toEqual([{ status: 'success', content: ['42'] }]);
    expect(seen.reply).toBe('The tool said: 42');
  });
});
