import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { createMcpTestClient, McpTestClient } from 'nestjs-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../src/app.module';
import { QUOTE, TIMEOUT, WRONG_QUANTITY } from './orders';

// The app module compiled by SWC (unplugin-swc), served by Fastify on 127.0.0.1 and driven over real HTTP.
describe('nestjs-mcp in a Nest monorepo under SWC and vitest', () => {
  let app: NestFastifyApplication;
  let mcp: McpTestClient;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
    mcp = createMcpTestClient(url);
  }, TIMEOUT);
  afterAll(() => app?.close());

  it('lists the library’s tool with the input and output schemas the plugin derived from its types', async () => {
    const tools = await mcp.listTools();
    expect(tools.status).toBe(200);
    expect(tools.result?.tools).toEqual([QUOTE]);
  });

  it('calls it through the library’s injected service, and refuses an argument of the wrong type', async () => {
    const quote = await mcp.callTool('quote', { sku: 'tea-01', quantity: 2, delivery: 'express' });
    expect(quote.result?.isError).toBeFalsy();
    expect(quote.result?.structuredContent).toEqual({ total: 1800, delivery: 'express' });
    const wrong = await mcp.callTool('quote', { sku: 'tea-01', quantity: 'two' });
    expect(wrong.status).toBe(200);
    expect(wrong.result?.isError).toBe(true);
    expect(wrong.result?.content).toEqual(WRONG_QUANTITY);
  });

  it('keeps the app’s own routes, served by the same library', async () => {
    const response = await fetch(`${url}/catalog/mug-02`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ sku: 'mug-02', price: 1200 });
  });
});
