import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient } from '@huggingface/mcp-client';
import { buildStdioEntries, STDIO_ENTRIES } from '../support/stdio-build.js';
import { startClientsApp, TOOL_NAMES, type ClientsApp } from './support/clients-app.js';

interface ChatRequest {
  messages: Array<{ role: string; content?: string }>;
  tools: Array<{ function: { name: string } }>;
}

/**
 * The model, which cannot run here: an OpenAI-style chat-completions endpoint that streams one tool call (the
 * `call` it was built with) when no tool has answered yet, then the last tool answer as its reply. It keeps the
 * requests, so the test sees which tools the client offered the model.
 */
async function scriptedModel(call: { name: string; arguments: Record<string, unknown> }) {
  const requests: ChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readJson(req).then((body) => {
      requests.push(body);
      const answered = body.messages.filter((message) => message.role === 'tool');
      const delta = answered.length
        ? { role: 'assistant', content: `The tool said: ${answered.at(-1)!.content}` }
        : {
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: 'call-1',
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              },
            ],
          };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'scripted',
        choices: [{ index: 0, delta }],
      };
      res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readJson(req: IncomingMessage): Promise<ChatRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
}

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
  let model: Awaited<ReturnType<typeof scriptedModel>>;
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
    expect(model.requests[0].tools.map((tool) => tool.function.name)).toEqual(TOOL_NAMES);
  });
});

describe('@huggingface/mcp-client 0.2.3 over stdio', () => {
  let model: Awaited<ReturnType<typeof scriptedModel>>;
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
