import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  CLIENT_ROOT,
  MODEL_REPLY,
  startClientsApp,
  textOf,
  TOOL_NAMES,
  type ClientsApp,
} from './support/clients-app.js';
import { RecordingProxy } from './support/recording-proxy.js';
import {
  erasOfToolCalls,
  inputRequiredResults,
  postedReplyStatuses,
  serverErrors,
  serverRequests,
  sessionIds,
} from './support/wire-log.js';

/**
 * The official client 2.4.0 in each negotiation mode. Its default (`legacy`) never probes 2026: it opens with
 * `initialize 2025-11-25`, and the server asks for input with requests on the call's SSE stream. `auto` probes
 * `server/discover` and speaks 2026-07-28, where the same tool asks with an `input_required` result that the
 * client answers through the same handlers and retries. One set of handlers, one set of tools, both eras.
 */
const MODES = [
  { mode: 'default', options: {}, era: { era: 'legacy', version: '2025-11-25', header: '2025-11-25' } },
  {
    mode: "versionNegotiation 'auto'",
    options: { versionNegotiation: { mode: 'auto' as const } },
    era: { era: 'modern', version: '2026-07-28', header: '2026-07-28' },
  },
  {
    mode: 'pinned to 2026-07-28',
    options: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    era: { era: 'modern', version: '2026-07-28', header: '2026-07-28' },
  },
] as const;

describe.each(MODES)('@modelcontextprotocol/client 2.4.0, $mode', ({ options, era }) => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let client: Client;
  const asked: string[] = [];
  const modern = era.era === 'modern';

  beforeAll(async () => {
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    client = new Client(
      { name: 'client-v2-e2e', version: '2.4.0' },
      { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} }, ...options },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(`elicitation: ${request.params.message}`);
      return { action: 'accept', content: { confirm: true } };
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push(`sampling: ${request.params.messages.map((m) => textOf(m.content)).join(' ')}`);
      return { role: 'assistant', content: { type: 'text', text: MODEL_REPLY }, model: 'test-model' };
    });
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: CLIENT_ROOT, name: 'project' }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
  });
  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await app?.close();
  });

  it(`connects in the ${era.era} era at ${era.version}`, () => {
    expect(client.getProtocolEra()).toBe(era.era);
    expect(client.getNegotiatedProtocolVersion()).toBe(era.version);
    expect(client.getServerVersion()).toMatchObject({ name: 'clients-e2e', version: '1.0.0' });
    expect(client.getInstructions()).toBe('Tools for the client e2e suite');
  });

  it('lists and calls a tool', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(result.isError).toBeFalsy();
  });

  it('completes an elicitation round through its handler', async () => {
    asked.length = 0;
    const result = await client.callTool({ name: 'delete_file', arguments: { path: '/tmp/a' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Deleted /tmp/a' }]);
    expect(asked).toEqual(['elicitation: Delete /tmp/a?']);
  });

  it('completes a sampling round through its handler', async () => {
    asked.length = 0;
    const result = await client.callTool({ name: 'ask_model', arguments: { question: 'Capital of France?' } });
    expect(result.content).toEqual([{ type: 'text', text: `The model said: ${MODEL_REPLY}` }]);
    expect(asked).toEqual(['sampling: Capital of France?']);
  });

  it('completes a roots round through its handler', async () => {
    const result = await client.callTool({ name: 'client_roots', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: `Roots: ${CLIENT_ROOT}` }]);
  });

  it(
    modern
      ? 'used 2026-07-28 for every call, asked with input_required results, and never saw a session'
      : 'used 2025-11-25 for every call, was asked with requests on the call stream, and never saw a session',
    () => {
      expect(erasOfToolCalls(proxy.exchanges)).toEqual([era]);
      if (modern) {
        expect(inputRequiredResults(proxy.exchanges)).toBe(3);
        expect(serverRequests(proxy.exchanges)).toEqual([]);
      } else {
        expect(inputRequiredResults(proxy.exchanges)).toBe(0);
        expect(serverRequests(proxy.exchanges)).toEqual(['elicitation/create', 'sampling/createMessage', 'roots/list']);
        expect(postedReplyStatuses(proxy.exchanges)).toEqual([202, 202, 202]);
      }
      expect(sessionIds(proxy.exchanges)).toEqual([]);
      expect(serverErrors(proxy.exchanges)).toEqual([]);
    },
  );
});
