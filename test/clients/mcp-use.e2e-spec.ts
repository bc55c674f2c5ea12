import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';
import { MODEL_REPLY, startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { runApartClient } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { legacyWire } from './support/wire-log.js';

interface Seen {
  tools: string[];
  results: Array<{ content: Array<{ type: string; text: string }>; isError: boolean }>;
  asked: string[];
}

/**
 * mcp-use's `MCPClient` 1.34.6 (on SDK 1.26.0, the 2025 era; the 2.x line of `mcp-use` is a server framework
 * whose client is not published), installed apart and run on Node 22 (installed-apart/mcp-use). Its
 * `onElicitation` and `onSampling` callbacks answer the server's requests.
 */
describe('mcp-use 1.34.6 MCPClient over Streamable HTTP', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let seen: Seen;

  beforeAll(async () => {
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    seen = await runApartClient<Seen>('mcp-use', {
      server: { url: proxy.url },
      calls: [
        { name: 'greet', arguments: { name: 'Ada' } },
        { name: 'delete_file', arguments: { path: '/tmp/a' } },
        { name: 'ask_model', arguments: { question: 'Capital of France?' } },
      ],
    });
  }, 900_000);
  afterAll(async () => {
    await proxy?.close();
    await app?.close();
  });

  it('lists the tools and calls one', () => {
    expect(seen.tools).toEqual(TOOL_NAMES);
    expect(seen.results[0]).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }], isError: false });
  });

  it('answers elicitation and sampling through its callbacks, on the call stream, with no session', () => {
    expect(seen.results.slice(1)).toEqual([
      { content: [{ type: 'text', text: 'Deleted /tmp/a' }], isError: false },
      { content: [{ type: 'text', text: `The model said: ${MODEL_REPLY}` }], isError: false },
    ]);
    expect(seen.asked).toEqual(['elicitation: Delete /tmp/a?', 'sampling: Capital of France?']);
    expect(legacyWire(proxy.exchanges)).toEqual({
      serverRequests: ['elicitation/create', 'sampling/createMessage'],
      replyStatuses: [202, 202],
      eras: [{ era: 'legacy', version: '2025-11-25', header: '2025-11-25' }],
      sessionIds: [],
      serverErrors: [],
    });
  });
});

describe('mcp-use 1.34.6 MCPClient over stdio', () => {
  let seen: Seen;

  beforeAll(async () => {
    await buildStdioEntries();
    seen = await runApartClient<Seen>('mcp-use', {
      server: { command: process.execPath, args: [STDIO_ENTRIES.basic] },
      calls: [{ name: 'add', arguments: { a: 2, b: 40 } }],
    });
  }, 900_000);

  it('launches the stdio server, lists its tools and calls one', () => {
    expect(seen.tools).toEqual(expect.arrayContaining(['get_weather', 'add', 'countdown']));
    expect(seen.results).toEqual([{ content: [{ type: 'text', text: '42' }], isError: false }]);
  });
});
