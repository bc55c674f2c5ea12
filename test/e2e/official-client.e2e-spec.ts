import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MCPServer, McpModule } from '../../src/index.js';
import { registerFeatures } from '../support/feature-server.js';

/**
 * The official TypeScript SDK v2 client, pinned to 2026-07-28, against a real Nest app listening on a real
 * loopback socket: no test helper of ours is between them.
 */
describe('Official MCP client (@modelcontextprotocol/client, pinned 2026-07-28) over a real socket', () => {
  let app: INestApplication;
  let client: Client;
  const elicitations: string[] = [];

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'real-client',
          version: '1.0.0',
          instructions: 'Test server',
          observability: { logFailedCalls: false },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    registerFeatures(app.get(MCPServer));
    await app.listen(0, '127.0.0.1');
    const url = new URL(`${await app.getUrl()}/mcp`.replace('[::1]', '127.0.0.1'));

    client = new Client(
      { name: 'official-client-e2e', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      elicitations.push(request.params.message);
      const content: Record<string, string | number> =
        request.params.message === 'How many people?' ? { people: 3 } : { time: '20:00' };
      return { action: 'accept', content };
    });
    await client.connect(new StreamableHTTPClientTransport(url));
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('negotiates 2026-07-28 through server/discover', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getServerVersion()?.name).toBe('real-client');
  });

  it('lists and calls tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add', 'countdown', 'weather', 'book', 'explode']);
    const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    expect(result.content).toEqual([{ type: 'text', text: '42' }]);
  });

  it('sends the Mcp-Param-* header a tool declares', async () => {
    const result = await client.callTool({ name: 'weather', arguments: { region: 'north' } });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'sunny in north' }]);
  });

  it('receives progress notifications', async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'countdown', arguments: { n: 3 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress).toEqual([1, 2, 3]);
  });

  it('completes an input_required round trip through its own elicitation handler', async () => {
    elicitations.length = 0;
    const result = await client.callTool({ name: 'book', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'table for 3 at 20:00' }]);
    expect(elicitations).toEqual(['How many people?', 'What time?']);
  });

  it('sees a failing tool as an isError result', async () => {
    const result = await client.callTool({ name: 'explode', arguments: {} });
    expect(result.isError).toBe(true);
  });

  it('lists and reads resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['memo://greeting']);
    const read = await client.readResource({ uri: 'memo://greeting' });
    expect(read.contents).toEqual([{ uri: 'memo://greeting', mimeType: 'text/plain', text: 'hello from a resource' }]);
  });

  it('lists, gets and completes prompts', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greet']);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Grace' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to Grace' } }]);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'c' },
    });
    expect(completion.completion.values).toEqual(['carol']);
  });
});
