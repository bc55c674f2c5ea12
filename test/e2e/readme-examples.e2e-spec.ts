import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppModule as QuickStartModule } from '../../examples/basic/app.module.js';
import { Args, McpCtx, McpModule, Tool, type McpContext } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { closeListening, listenOnLoopback } from '../support/sse-client.js';

// The code below is the README's, verbatim but for the in-memory FileService; keep them in step.
@Injectable()
class FileService {
  readonly deleted: string[] = [];
  async delete(path: string): Promise<void> {
    this.deleted.push(path);
  }
}

@Injectable()
export class FileTools {
  constructor(private readonly files: FileService) {}

  @Tool({
    description: 'Deletes a file once the user confirms',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    singleUseState: true, // a replayed confirmation is refused, never run twice
  })
  async delete_file(@Args('path') path: string, @McpCtx() ctx: McpContext) {
    const answer = await ctx.elicit(`Delete ${path}? This cannot be undone.`, {
      type: 'object',
      properties: { confirm: { type: 'boolean' } },
      required: ['confirm'],
    });
    if (answer.action !== 'accept' || answer.content?.confirm !== true) return 'Nothing was deleted.';
    await this.files.delete(path);
    return `Deleted ${path}`;
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'files', version: '1.0.0' })], providers: [FileService, FileTools] })
class AppModule {}

describe('README examples', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(() => app.close());

  it('the confirm-before-delete tool asks first, then deletes only on an accepted confirmation', async () => {
    const mcp = createMcpTestClient(app);
    const first = await mcp.callTool('delete_file', { path: '/tmp/a' });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { elicit_0: { method: 'elicitation/create' } },
    });
    expect(app.get(FileService).deleted).toEqual([]);

    const declined = await mcp.callTool(
      'delete_file',
      { path: '/tmp/a' },
      { answers: { elicit_0: { action: 'decline' } } },
    );
    expect(declined.result?.content).toEqual([{ type: 'text', text: 'Nothing was deleted.' }]);
    expect(app.get(FileService).deleted).toEqual([]);

    const confirmed = await mcp.callTool(
      'delete_file',
      { path: '/tmp/a' },
      { answers: { elicit_0: { action: 'accept', content: { confirm: true } } } },
    );
    expect(confirmed.result?.content).toEqual([{ type: 'text', text: 'Deleted /tmp/a' }]);
    expect(confirmed.rounds).toBe(1);
    expect(app.get(FileService).deleted).toEqual(['/tmp/a']);
  });

  it('the deletion example refuses a replayed confirmation: the file is deleted once', async () => {
    const mcp = createMcpTestClient(app);
    const first = await mcp.callTool('delete_file', { path: '/tmp/b' });
    const retry = {
      name: 'delete_file',
      arguments: { path: '/tmp/b' },
      inputResponses: { elicit_0: { action: 'accept', content: { confirm: true } } },
      requestState: (first.result as unknown as { requestState: string }).requestState,
    };
    const confirmed = await mcp.request('tools/call', retry);
    expect(confirmed.result?.content).toEqual([{ type: 'text', text: 'Deleted /tmp/b' }]);
    const replayed = await mcp.request('tools/call', retry);
    expect(replayed.status).toBe(400);
    expect(replayed.error).toMatchObject({ code: -32602, message: 'requestState has already been used' });
    expect(app.get(FileService).deleted.filter((path) => path === '/tmp/b')).toEqual(['/tmp/b']);
  });
});

describe('README quick start: the official client with its defaults', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = (await Test.createTestingModule({ imports: [QuickStartModule] }).compile()).createNestApplication({
      logger: false,
    });
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  it('connects, lists the example tools, calls get_weather and prints what the README says', async () => {
    const printed: unknown[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((value: unknown) => void printed.push(value));
    try {
      // The README's snippet, verbatim but for the URL (the example listens on a free port here).
      const client = new Client({ name: 'my-app', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await client.listTools(); // get_weather, add, countdown
      const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
      console.log(weather.content); // [{ type: 'text', text: '{"city":"Paris","temperatureC":13,"conditions":"windy"}' }]
      await client.close();

      expect(tools.map((tool) => tool.name)).toEqual(['get_weather', 'add', 'countdown', 'get_forecast']);
    } finally {
      log.mockRestore();
    }
    expect(printed).toEqual([[{ type: 'text', text: '{"city":"Paris","temperatureC":13,"conditions":"windy"}' }]]);
  });
});
