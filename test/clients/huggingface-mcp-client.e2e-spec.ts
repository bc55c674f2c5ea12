import { McpClient } from '@huggingface/mcp-client';
import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';
import { scriptedModel, type ScriptedModel } from './support/scripted-model.js';

/** One turn of the client's agent loop: what it yields, tool messages picked out. */
async function turn(client: McpClient, prompt: string) {
  const messages = [{ role: 'user', content: prompt }];
  const toolMessages: Array<{ name?: string; content: string }> = [];
  for await (const item of client.processSingleTurnWithTools(messages)) {
    if ('role' in item && item.role === 'tool') toolMessages.push(item);
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
    app = await startClientsApp();
    model = await scriptedModel({ name: 'greet', arguments: { name: 'Ada' } });
    client = new McpClient({ endpointUrl: model.url, model: 'scripted', apiKey: 'unused' });
    await client.addMcpServer({ type: 'http', config: { url: app.url } });
  });
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
    await buildStdioEntries();
    model = await scriptedModel({ name: 'add', arguments: { a: 2, b: 40 } });
    client = new McpClient({ endpointUrl: model.url, model: 'scripted', apiKey: 'unused' });
    await client.addMcpServer({ command: process.execPath, args: [STDIO_ENTRIES.basic] });
  }, 180_000);
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
