import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { importApart } from './support/installed-apart.js';
import { scriptedModel, type ScriptedModel } from './support/scripted-model.js';

type ServerConfig = { type: 'http'; config: { url: string } } | { command: string; args: string[] };
interface McpClient {
  addMcpServer(server: ServerConfig): Promise<void>;
  availableTools: Array<{ function: { name: string } }>;
  /** Yields the model's chunks and the tool messages (`role: 'tool'`) of one turn. */
  processSingleTurnWithTools(
    messages: Array<{ role: string; content: string }>,
  ): AsyncIterable<{ role?: string; name?: string; content: string }>;
  cleanup(): Promise<void>;
}
/** What the spec uses of `@huggingface/mcp-client`, installed apart (installed-apart/huggingface). */
interface HuggingFace {
  McpClient: new (options: { endpointUrl: string; model: string; apiKey: string }) => McpClient;
}

/** One turn of the client's agent loop: what it yields, tool messages picked out. */
async function turn(client: McpClient, prompt: string) {
  const messages = [{ role: 'user', content: prompt }];
  const toolMessages: Array<{ name?: string; content: string }> = [];
  for await (const item of client.processSingleTurnWithTools(messages)) {
    if (item.role === 'tool') toolMessages.push(item);
  }
  return { messages, toolMessages };
}

/**
 * Hugging Face's `@huggingface/mcp-client` 0.2.3 (on SDK client 1.x, the 2025 era) in its agent loop: it
 * connects to each MCP server, offers its tools to the model as functions, and calls the one the model picks.
 * Over Streamable HTTP and over stdio; the model is a scripted stand-in.
 */
describe('@huggingface/mcp-client 0.2.3 over Streamable HTTP', () => {
  let app: ClientsApp;
  let model: ScriptedModel;
  let client: McpClient;

  beforeAll(async () => {
    const { McpClient } = await importApart<HuggingFace>('huggingface');
    app = await startClientsApp();
    model = await scriptedModel({ name: 'greet', arguments: { name: 'Ada' } });
    client = new McpClient({ endpointUrl: model.url, model: 'scripted', apiKey: 'unused' });
    await client.addMcpServer({ type: 'http', config: { url: app.url } });
  }, 600_000);
  afterAll(async () => {
    await client?.cleanup();
    await model?.close();
    await app?.close();
  });

  it("offers the server's tools to the model and calls the one it picks, in the agent loop", async () => {
    expect(client.availableTools.map((tool) => tool.function.name)).toEqual(TOOL_NAMES);
    const { toolMessages } = await turn(client, 'Greet Ada');
    expect(toolMessages).toEqual([expect.objectContaining({ name: 'greet', content: 'Hello, Ada!' })]);
    expect(model.requests[0].tools!.map((tool) => tool.function.name)).toEqual(TOOL_NAMES);
  });
});

describe('@huggingface/mcp-client 0.2.3 over stdio', () => {
  let model: ScriptedModel;
  let client: McpClient;

  beforeAll(async () => {
    const { McpClient } = await importApart<HuggingFace>('huggingface');
    await buildStdioEntries();
    model = await scriptedModel({ name: 'add', arguments: { a: 2, b: 40 } });
    client = new McpClient({ endpointUrl: model.url, model: 'scripted', apiKey: 'unused' });
    await client.addMcpServer({ command: process.execPath, args: [STDIO_ENTRIES.basic] });
  }, 600_000);
  afterAll(async () => {
    await client?.cleanup();
    await model?.close();
  });

  it('launches the stdio server, offers its tools and calls the one the model picks', async () => {
    expect(client.availableTools.map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(['get_weather', 'add', 'countdown']),
    );
    const { toolMessages } = await turn(client, 'What is 2 + 40?');
    expect(toolMessages).toEqual([expect.objectContaining({ name: 'add', content: '42' })]);
  });
});
