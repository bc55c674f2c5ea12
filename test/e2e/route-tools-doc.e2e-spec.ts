import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { OrdersModule } from '../../examples/route-tools/orders.module.js';
import { McpConfigurationError } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';

describe('docs/route-tools.md', () => {
  it("shows examples/route-tools/orders.module.ts verbatim (but for the package's name)", () => {
    const doc = readFileSync('docs/route-tools.md', 'utf8');
    const shown = /```ts\n([\s\S]*?)```/.exec(doc)![1];
    const file = readFileSync('examples/route-tools/orders.module.ts', 'utf8');
    expect(shown).toBe(file.replace("'../../src/index.js'", "'nestjs-mcp'"));
  });

  it('fails start-up in an application context (no HTTP adapter), naming the route and the fix', async () => {
    const failure = await NestFactory.createApplicationContext(OrdersModule, {
      logger: false,
      abortOnError: false,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpConfigurationError);
    expect((failure as Error).message).toContain('OrdersController.findOne: route tools run their route');
    expect((failure as Error).message).toContain('bootstrapStdio(AppModule, { http: true })');
  });

  describe.each(HTTP_ADAPTERS)('its example (%s)', (adapter) => {
    let app: INestApplication;
    beforeAll(async () => {
      app = await createApp([OrdersModule], [], adapter);
    });
    afterAll(() => app.close());

    it("lists the two routes by operationId, and runs them behind the backend's guard", async () => {
      const client = createMcpTestClient(app, { headers: { authorization: 'Bearer demo-token' } });
      const listed = await client.listTools();
      expect(listed.result!.tools.map((tool) => [tool.name, tool.description])).toEqual([
        ['get_order', 'One order by its number'],
        ['create_order', 'Places an order'],
      ]);
      const order = await client.callTool('get_order', { id: 1 });
      expect(order.result!.structuredContent).toEqual({ id: 1, item: 'tea', quantity: 2 });
      const missing = await client.callTool('get_order', { id: 9 });
      expect(missing.result!.content).toEqual([{ type: 'text', text: 'Error: Order 9 does not exist' }]);
      const invalid = await client.callTool('create_order', { item: 'tea', quantity: 0 });
      expect(invalid.result!.content).toEqual([{ type: 'text', text: 'Error: quantity must not be less than 1' }]);
      await client.close();
    });

    it('answers a caller without the API token with the guard message', async () => {
      const client = createMcpTestClient(app);
      const { result } = await client.callTool('get_order', { id: 1 });
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: Unknown API token' }] });
      await client.close();
    });
  });
});
