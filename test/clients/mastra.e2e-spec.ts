import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { importApart } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { erasOfToolCalls, inputRequiredResults, serverErrors, serverRequests, sessionIds } from './support/wire-log.js';

/** What a Mastra tool's `execute` resolves to: the MCP result as the server sent it. */
interface MastraToolResult {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
}
type MastraTool = { execute(input: Record<string, unknown>, context: object): Promise<MastraToolResult> };
interface MCPClient {
  listTools(): Promise<Record<string, MastraTool>>;
  disconnect(): Promise<void>;
}
type InputRequests = (request: { params: unknown }) => Promise<{ action: 'accept'; content: Record<string, unknown> }>;
/** What the spec uses of `@mastra/mcp`, installed apart (installed-apart/mastra). */
interface Mastra {
  MCPClient: new (options: { servers: Record<string, { url: URL; inputRequests: InputRequests }> }) => MCPClient;
}

/**
 * `@mastra/mcp` 2.0.0 (on SDK 2.0.0): probes `server/discover` and speaks 2026-07-28 statelessly; its
 * `inputRequests` handler answers an `input_required` round (form elicitation). Tools come back namespaced
 * `server_tool`, as Mastra agents take them.
 */
describe('@mastra/mcp 2.0.0 (2026-07-28)', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let client: MCPClient;
  let tools: Record<string, MastraTool>;
  const asked: string[] = [];

  beforeAll(async () => {
    const { MCPClient } = await importApart<Mastra>('mastra');
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    client = new MCPClient({
      servers: {
        clients: {
          url: new URL(proxy.url),
          inputRequests: async ({ params }) => {
            asked.push((params as { message: string }).message);
            return { action: 'accept', content: { confirm: true } };
          },
        },
      },
    });
    tools = await client.listTools();
  }, 600_000);
  afterAll(async () => {
    await client?.disconnect();
    await proxy?.close();
    await app?.close();
  });

  it('lists the tools, namespaced by server, and calls one', async () => {
    expect(Object.keys(tools)).toEqual(TOOL_NAMES.map((name) => `clients_${name}`));
    const result = await tools.clients_greet.execute({ name: 'Ada' }, {});
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(result.isError).toBeFalsy();
  });

  it('calls a tool whose input schema is zod', async () => {
    const result = await tools.clients_book_room.execute({ room: 'Aula', hours: 2 }, {});
    expect(result.content).toEqual([{ type: 'text', text: 'Booked Aula for 2h' }]);
  });

  it('completes an elicitation round through its inputRequests handler', async () => {
    const result = await tools.clients_delete_file.execute({ path: '/tmp/a' }, {});
    expect(result.content).toEqual([{ type: 'text', text: 'Deleted /tmp/a' }]);
    expect(asked).toEqual(['Delete /tmp/a?']);
  });

  it('used the 2026 era (one input_required round, no server requests) and never saw a session', () => {
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([{ era: 'modern', version: '2026-07-28', header: '2026-07-28' }]);
    expect(inputRequiredResults(proxy.exchanges)).toBe(1);
    expect(serverRequests(proxy.exchanges)).toEqual([]);
    expect(sessionIds(proxy.exchanges)).toEqual([]);
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});
