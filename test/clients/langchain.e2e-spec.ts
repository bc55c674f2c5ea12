import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { importApart } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { erasOfToolCalls, serverErrors, sessionIds } from './support/wire-log.js';

/** What the spec uses of `@langchain/mcp-adapters`, installed apart (installed-apart/langchain). */
interface LangChain {
  MultiServerMCPClient: new (config: { mcpServers: Record<string, { transport: 'http'; url: string }> }) => {
    getTools(): Promise<Array<{ name: string; invoke(input: Record<string, unknown>): Promise<unknown> }>>;
    close(): Promise<void>;
  };
}

/**
 * `@langchain/mcp-adapters` 1.1.4 (on SDK 1.32.2): opens with `initialize 2025-11-25`, turns the listed tools
 * into LangChain tools and calls them. It registers no handler for server requests, so list and call is all
 * it does with MCP; when the POST fails it retries over the old SSE transport, which this server never has.
 */
describe('@langchain/mcp-adapters 1.1.4 (2025 era, stateless)', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let client: InstanceType<LangChain['MultiServerMCPClient']>;

  beforeAll(async () => {
    const { MultiServerMCPClient } = await importApart<LangChain>('langchain');
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    client = new MultiServerMCPClient({ mcpServers: { clients: { transport: 'http', url: proxy.url } } });
  }, 600_000);
  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await app?.close();
  });

  it('lists the tools as LangChain tools and calls one', async () => {
    const tools = await client.getTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const greet = tools.find((tool) => tool.name === 'greet')!;
    expect(await greet.invoke({ name: 'Ada' })).toBe('Hello, Ada!');
  });

  it('used the 2025 era at 2025-11-25 over Streamable HTTP only, and never saw a session', () => {
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([{ era: 'legacy', version: '2025-11-25', header: '2025-11-25' }]);
    expect(proxy.exchanges.filter((exchange) => exchange.method === 'POST' && exchange.status >= 400)).toEqual([]);
    expect(sessionIds(proxy.exchanges)).toEqual([]);
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});
