import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { importApart } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { erasOfToolCalls, serverErrors, sessionIds } from './support/wire-log.js';

interface McpServer {
  connect(): Promise<void>;
  listTools(): Promise<Array<{ name: string; inputSchema: unknown }>>;
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  callToolResult(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: unknown }>;
  close(): Promise<void>;
}
/** What the spec uses of `@openai/agents`, installed apart (installed-apart/openai-agents). */
interface Agents {
  MCPServerStreamableHttp: new (options: { url: string; name: string }) => McpServer;
  MCPServerStdio: new (options: { command: string; args: string[]; name: string }) => McpServer;
}

/**
 * The OpenAI Agents SDK 0.20.0 (`@openai/agents`, on SDK client 2.x): the MCP servers an agent is given,
 * over Streamable HTTP and over stdio (it launches the server as a child process). It lists and calls tools;
 * it registers no elicitation or sampling handler, so a tool that asks gets no answer from it.
 */
describe('@openai/agents 0.20.0 MCPServerStreamableHttp', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let server: McpServer;

  beforeAll(async () => {
    const { MCPServerStreamableHttp } = await importApart<Agents>('openai-agents');
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    server = new MCPServerStreamableHttp({ url: proxy.url, name: 'clients' });
    await server.connect();
  }, 600_000);
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await app?.close();
  });

  it('lists the tools with their schemas and calls them, zod ones included', async () => {
    const tools = await server.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    expect(tools.find((tool) => tool.name === 'book_room')?.inputSchema).toMatchObject({
      type: 'object',
      required: ['room', 'hours'],
    });
    expect(await server.callTool('greet', { name: 'Ada' })).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(await server.callTool('book_room', { room: 'Aula', hours: 3 })).toEqual([
      { type: 'text', text: 'Booked Aula for 3h' },
    ]);
  });

  it('gets the validation error of a bad argument as an isError result', async () => {
    const result = await server.callToolResult('book_room', { room: 'Aula', hours: 0 });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('hours');
  });

  it('used the 2026 era at 2026-07-28, never saw a session, and the server never failed', () => {
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([{ era: 'modern', version: '2026-07-28', header: '2026-07-28' }]);
    expect(sessionIds(proxy.exchanges)).toEqual([]);
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});

describe('@openai/agents 0.20.0 MCPServerStdio', () => {
  let server: McpServer;

  beforeAll(async () => {
    const { MCPServerStdio } = await importApart<Agents>('openai-agents');
    await buildStdioEntries();
    server = new MCPServerStdio({ command: process.execPath, args: [STDIO_ENTRIES.basic], name: 'weather' });
    await server.connect();
  }, 600_000);
  afterAll(() => server?.close());

  it('launches the stdio server, lists its tools and calls one', async () => {
    const tools = await server.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['get_weather', 'add', 'countdown']));
    expect(await server.callTool('add', { a: 2, b: 40 })).toEqual([{ type: 'text', text: '42' }]);
  });
});
