import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { importApart } from './support/installed-apart.js';
import { RecordingProxy } from './support/recording-proxy.js';
import { erasOfToolCalls, serverErrors, sessionIds } from './support/wire-log.js';

type GenkitTool = ((input: Record<string, unknown>) => Promise<unknown>) & {
  __action: { name: string; inputJsonSchema?: Record<string, unknown> };
};

interface GenkitMcpClient {
  ready(): Promise<void>;
  getActiveTools(ai: unknown): Promise<unknown[]>;
  disable(): Promise<void>;
}

/** What the spec uses of `@genkit-ai/mcp` and `genkit`, installed apart (installed-apart/genkit). */
interface Genkit {
  createMcpClient(options: { name: string; mcpServer: { url: string } }): GenkitMcpClient;
  genkit(options: Record<string, never>): unknown;
}

/**
 * Genkit's MCP plugin `@genkit-ai/mcp` 1.42.0 (on SDK 1.x, 2025 era): turns the server's tools into Genkit
 * tools named `server/tool`, and validates arguments against each published input schema itself (a draft-07
 * validator) before it calls. It has no elicitation or sampling support.
 */
describe('@genkit-ai/mcp 1.42.0', () => {
  let app: ClientsApp;
  let proxy: RecordingProxy;
  let client: GenkitMcpClient;
  let tools: GenkitTool[];
  const tool = (name: string) => tools.find((t) => t.__action.name === `clients-e2e/${name}`)!;

  beforeAll(async () => {
    const { createMcpClient, genkit } = await importApart<Genkit>('genkit');
    app = await startClientsApp();
    proxy = await RecordingProxy.start(app.url);
    client = createMcpClient({ name: 'genkit-e2e', mcpServer: { url: proxy.url } });
    await client.ready();
    tools = (await client.getActiveTools(genkit({}))) as GenkitTool[];
  }, 600_000);
  afterAll(async () => {
    await client?.disable();
    await proxy?.close();
    await app?.close();
  });

  it('lists the tools as Genkit tools and calls one', async () => {
    expect(tools.map((t) => t.__action.name)).toEqual(TOOL_NAMES.map((name) => `clients-e2e/${name}`));
    expect(await tool('greet')({ name: 'Ada' })).toBe('Hello, Ada!');
  });

  it('calls a zod-schema tool: its published schema names no $schema for the validator to trip on', async () => {
    expect(tool('book_room').__action.inputJsonSchema).not.toHaveProperty('$schema');
    expect(await tool('book_room')({ room: 'Aula', hours: 2 })).toBe('Booked Aula for 2h');
  });

  it("refuses bad arguments with its own validator, from the server's schema", async () => {
    await expect(tool('book_room')({ room: 'Aula', hours: 'two' })).rejects.toThrow(/hours/);
  });

  it('used the 2025 era at 2025-11-25, never saw a session or a server error', () => {
    expect(erasOfToolCalls(proxy.exchanges)).toEqual([{ era: 'legacy', version: '2025-11-25', header: '2025-11-25' }]);
    expect(sessionIds(proxy.exchanges)).toEqual([]);
    expect(serverErrors(proxy.exchanges)).toEqual([]);
  });
});
