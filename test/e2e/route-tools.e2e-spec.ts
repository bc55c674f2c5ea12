import 'reflect-metadata';
import { ValidationPipe, VersioningType, type INestApplication, type VersioningOptions } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { CallToolResult } from '../../src/index.js';
import type { ToolDefinition } from '../../src/protocol/mcp-types.js';
import { McpConfigurationError, McpModule } from '../../src/index.js';
import { sendInProcess } from '../../src/http/in-process-request.js';
import { createMcpTestClient, type McpTestClient } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { legacyPost, legacyRequest } from '../support/legacy-client.js';
import { createTask, waitForStatus } from '../support/task-requests.js';
import {
  CollidingController,
  OrdersModule,
  HangingController,
  ItemsModule,
  NotesController,
  RenamedController,
  ReportsController,
  PlainTools,
  StockController,
  TwinController,
  VersionedController,
  seen,
} from '../support/route-tools-app.js';

const auth = {
  resource: 'http://127.0.0.1/mcp',
  authorizationServers: ['https://auth.example.com'],
  // The MCP endpoint and the route accept the same bearer token, as one backend's would.
  verify: (token: string) =>
    ({
      reader: { sub: 'ana', scope: 'orders:read' },
      auditor: { sub: 'cy', scope: 'orders:read' },
      guest: { sub: 'bo', scope: '' },
    })[token] ?? null,
};

/** A tool result without the envelope every result carries (server info, result type). */
function bare(result: CallToolResult | undefined): Omit<CallToolResult, '_meta' | 'resultType'> {
  const { _meta, resultType: _resultType, ...rest } = result as CallToolResult & { resultType?: string };
  return rest;
}

describe.each(HTTP_ADAPTERS)('route tools (%s)', (adapter) => {
  let app: INestApplication;
  let client: McpTestClient;
  let tools: Map<string, ToolDefinition>;

  beforeAll(async () => {
    app = await createApp(
      [
        OrdersModule,
        McpModule.forRoot({
          name: 'orders',
          version: '1.0.0',
          auth,
          routes: { forwardHeaders: ['X-Tenant-Id'] },
        }),
      ],
      [],
      adapter,
    );
    client = createMcpTestClient(app, { headers: { authorization: 'Bearer reader' } });
    const listed = await client.listTools();
    tools = new Map(listed.result!.tools.map((tool) => [tool.name, tool]));
  });
  afterAll(async () => {
    await client.close();
    await app.close();
  });
  beforeEach(() => seen.reset());

  it('lists decorated routes under snake_case names, with annotations from the HTTP method', () => {
    expect([...tools.keys()].sort()).toEqual([
      'lookup_product',
      'orders_create',
      'orders_feed',
      'orders_find_one',
      'orders_greeting',
      'orders_logo',
      'orders_remove',
      'orders_report',
      'orders_total',
      'plain_find_one',
    ]);
    expect(tools.get('orders_find_one')).toMatchObject({
      description: 'One order by its number',
      annotations: { readOnlyHint: true },
    });
    expect(tools.get('orders_create')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(tools.get('orders_remove')!.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(tools.get('orders_total')!.description).toBe('GET /orders/wrapped/total');
  });

  it('does not list an undecorated route', () => {
    expect([...tools.values()].some((tool) => tool.description?.includes('audit'))).toBe(false);
  });

  it('merges path, query and body into one flat input schema', () => {
    expect(tools.get('orders_find_one')!.inputSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' }, expand: { type: 'string' } },
      required: ['id'],
    });
    const create = tools.get('orders_create')!.inputSchema as Record<string, any>;
    expect(Object.keys(create.properties).sort()).toEqual(['item', 'note', 'quantity']);
    expect(create.properties.quantity).toMatchObject({ type: 'integer', minimum: 1 });
    expect(create.required.sort()).toEqual(['item', 'quantity']);
  });

  it('runs a route with a class-validator body DTO through the global ValidationPipe', async () => {
    const { result } = await client.callTool('orders_create', { item: 'tea', quantity: 2 });
    expect(bare(result)).toEqual({
      content: [{ type: 'text', text: '{"id":7,"item":"tea","quantity":2}' }],
      structuredContent: { id: 7, item: 'tea', quantity: 2 },
    });
    expect(seen.handled).toEqual(['create']);
  });

  it("answers a validation failure with the pipe's message, without running the handler", async () => {
    const { result } = await client.callTool('orders_create', { item: '', quantity: 0 });
    expect(bare(result)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: item should not be empty; quantity must not be less than 1' }],
    });
    expect(seen.handled).toEqual([]);
  });

  it('passes :id through ParseIntPipe and a query parameter', async () => {
    const { result } = await client.callTool('orders_find_one', { id: 12, expand: 'lines' });
    expect(result!.structuredContent).toEqual({ id: 12, idType: 'number', expand: 'lines' });
    const bad = await client.callTool('orders_find_one', { id: 'twelve' });
    expect(bare(bad.result)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: Validation failed (numeric string is expected)' }],
    });
  });

  it('runs the route behind an interceptor', async () => {
    const { result } = await client.callTool('orders_total');
    expect(result!.structuredContent).toEqual({ data: { total: 42 }, wrappedBy: 'EnvelopeInterceptor' });
  });

  it("forwards the caller's Authorization to a guarded route, and nothing else but the allowlist", async () => {
    const { result } = await client.callTool(
      'orders_report',
      {},
      { headers: { 'x-tenant-id': 'acme', 'x-secret-of-mcp': 'do-not-pass', cookie: 'session=s1' } },
    );
    expect(result!.structuredContent).toMatchObject({ report: 'all good' });
    const routeHeaders = seen.headers.at(-1)!;
    expect(routeHeaders).toMatchObject({ authorization: 'Bearer reader', 'x-tenant-id': 'acme', cookie: 'session=s1' });
    expect(routeHeaders['x-secret-of-mcp']).toBeUndefined();
    expect(routeHeaders['mcp-method']).toBeUndefined();
    expect(routeHeaders['mcp-protocol-version']).toBeUndefined();
  });

  it("is refused by the route's guard when the caller's token is not the route's", async () => {
    // `guest` passes MCP auth but lacks the tool's scope: the kernel refuses before the route runs.
    const guest = await client.callTool('orders_report', {}, { headers: { authorization: 'Bearer guest' } });
    expect(guest.status).toBe(403);
    expect(seen.handled).toEqual([]);
  });

  it("returns the route's own message when its guard refuses a caller MCP accepted", async () => {
    const { result } = await client.callTool('orders_report', {}, { headers: { authorization: 'Bearer auditor' } });
    expect(bare(result)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: A reader token is needed' }],
    });
    expect(seen.handled).toEqual([]);
  });

  it('uses Swagger metadata for the name, description, parameters and output schema', () => {
    const tool = tools.get('lookup_product')!;
    expect(tool.description).toBe('Look up a product\n\nBy its SKU.');
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        sku: { type: 'string', description: 'The product SKU' },
        currency: { type: 'string', enum: ['EUR', 'USD'] },
      },
      required: ['sku'],
    });
    expect(tool.outputSchema).toMatchObject({
      type: 'object',
      properties: {
        sku: { type: 'string', description: 'Stock keeping unit' },
        priceCents: { type: 'number', description: 'Price in cents' },
      },
      required: ['sku', 'name'],
    });
  });

  it('carries a text answer as text, and refuses a binary answer and an event stream', async () => {
    expect(bare((await client.callTool('orders_greeting')).result)).toEqual({
      content: [{ type: 'text', text: 'hello from the route' }],
    });
    expect(bare((await client.callTool('orders_logo')).result)).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Error: the route answered image/png, which a route tool does not carry (it carries JSON and text)',
        },
      ],
    });
    expect(bare((await client.callTool('orders_feed')).result)).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Error: the route answered with an event stream (text/event-stream), which a tool call cannot carry',
        },
      ],
    });
  });

  it('answers an empty 2xx with no content', async () => {
    const { result } = await client.callTool('orders_remove', { id: 'o-9' });
    expect(bare(result)).toEqual({ content: [] });
    expect(seen.handled).toEqual(['remove o-9']);
  });

  it('serves a 2025-era client the same route tool', async () => {
    const response = await legacyPost(
      app,
      legacyRequest('tools/call', { name: 'orders_find_one', arguments: { id: 3 } }),
      { authorization: 'Bearer reader' },
    );
    expect(response.status).toBe(200);
    expect(response.body.result.structuredContent).toEqual({ id: 3, idType: 'number', expand: null });
  });
});

describe.each(HTTP_ADAPTERS)('route tools: naming rules and module options (%s)', (adapter) => {
  it('refuses at start-up a key that the path and the body both declare, naming both', async () => {
    const failure = createApp([McpModule.forRoot({ name: 'items', version: '1.0.0' })], [], adapter, [
      CollidingController,
    ]).catch((error: unknown) => error);
    const error = (await failure) as Error;
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toBe(
      'CollidingController.replace: route tool argument "id" is declared by @Param(\'id\') and by ' +
        'ItemWithIdDto.id (@Body()); give one another name with @RouteTool({ rename: { path | query | body: ' +
        "{ id: 'other_name' } } })",
    );
  });

  it('refuses at start-up a route tool named as another tool, naming both places', async () => {
    const error = await createApp([McpModule.forRoot({ name: 'twins', version: '1.0.0' })], [PlainTools], adapter, [
      TwinController,
    ]).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toBe(
      'Duplicate MCP tool "plain_find_one": declared by PlainTools.findOne and by TwinController.findOne',
    );
  });

  it('serves a renamed key under its new name and sends it under the route key', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'items', version: '1.0.0' })], [], adapter, [
      RenamedController,
    ]);
    const client = createMcpTestClient(app);
    const { result } = await client.callTool('renamed_replace', { id: 'p-1', item_id: 'b-2', label: 'box' });
    expect(result!.structuredContent).toEqual({ pathId: 'p-1', bodyId: 'b-2', label: 'box' });
    await client.close();
    await app.close();
  });

  it('serves every route of the controllers listed in routes.controllers', async () => {
    const app = await createApp(
      [McpModule.forRoot({ name: 'stock', version: '1.0.0', routes: { controllers: [StockController] } })],
      [],
      adapter,
      [StockController],
    );
    const client = createMcpTestClient(app);
    const listed = await client.listTools();
    expect(listed.result!.tools.map((tool) => tool.name).sort()).toEqual(['stock_level', 'stock_reserve']);
    const { result } = await client.callTool('stock_reserve', { sku: 'a-1', count: 2 });
    expect(result!.structuredContent).toEqual({ sku: 'a-1', reserved: 2 });
    await client.close();
    await app.close();
  });

  it('spreads a whole-DTO query into arguments, and sends undeclared ones into an untyped body', async () => {
    const app = await createApp(
      [McpModule.forRoot({ name: 'notes', version: '1.0.0' })],
      [{ provide: APP_PIPE, useValue: new ValidationPipe({ transform: true }) }],
      adapter,
      [NotesController],
    );
    const client = createMcpTestClient(app);
    const listed = await client.listTools();
    const search = listed.result!.tools.find((tool) => tool.name === 'notes_search')!;
    expect(Object.keys((search.inputSchema as { properties: object }).properties).sort()).toEqual(['limit', 'term']);
    const found = await client.callTool('notes_search', { term: 'tea', limit: 5, stray: 'dropped' });
    expect(found.result!.structuredContent).toEqual({ term: 'tea', limit: 5, limitType: 'number' });
    const added = await client.callTool('notes_add', { title: 'Buy tea', tags: ['shop'] });
    expect(added.result!.structuredContent).toEqual({ stored: { title: 'Buy tea', tags: ['shop'] } });
    await client.close();
    await app.close();
  });

  it('runs a route tool as a task for a client that declared the tasks extension', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'reports', version: '1.0.0' })], [], adapter, [
      ReportsController,
    ]);
    const { taskId } = await createTask(app, 'build_report', { rows: 3 });
    const done = await waitForStatus(app, taskId, 'completed');
    expect(done.result.structuredContent).toEqual({ rows: 3, built: true });
    await app.close();
  });

  it('serves only the route tools of the modules in include', async () => {
    const app = await createApp(
      [OrdersModule, ItemsModule, McpModule.forRoot({ name: 'items', version: '1.0.0', include: [ItemsModule] })],
      [],
      adapter,
    );
    const client = createMcpTestClient(app);
    const listed = await client.listTools();
    expect(listed.result!.tools.map((tool) => tool.name)).toEqual(['renamed_replace']);
    await client.close();
    await app.close();
  });

  it('refuses an answer longer than routes.maxResponseBytes', async () => {
    const app = await createApp(
      [
        McpModule.forRoot({
          name: 'stock',
          version: '1.0.0',
          routes: { controllers: [StockController], maxResponseBytes: 10 },
        }),
      ],
      [],
      adapter,
      [StockController],
    );
    const client = createMcpTestClient(app);
    const { result } = await client.callTool('stock_level', { sku: 'a-1' });
    expect(bare(result)).toEqual({
      isError: true,
      content: [{ type: 'text', text: "Error: the route's answer exceeds 10 bytes" }],
    });
    await client.close();
    await app.close();
  });

  it.each<[string, VersioningOptions]>([
    ['URI', { type: VersioningType.URI }],
    ['header', { type: VersioningType.HEADER, header: 'X-Api-Version' }],
  ])('reaches a versioned route under the global prefix (%s versioning)', async (_kind, versioning) => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'levels', version: '1.0.0' })],
      controllers: [VersionedController],
    }).compile();
    const app =
      adapter === 'express'
        ? moduleRef.createNestApplication({ logger: false })
        : moduleRef.createNestApplication(new FastifyAdapter(), { logger: false });
    app.setGlobalPrefix('api', { exclude: ['mcp'] });
    app.enableVersioning(versioning);
    await app.init();
    const client = createMcpTestClient(app);
    const listed = await client.listTools();
    const expectedPath = versioning.type === VersioningType.URI ? '/api/v2/levels/:sku' : '/api/levels/:sku';
    expect(listed.result!.tools[0].description).toBe(`GET ${expectedPath}`);
    const { result } = await client.callTool('level_v2', { sku: 'k-1' });
    expect(result!.structuredContent).toEqual({ sku: 'k-1', version: '2' });
    await client.close();
    await app.close();
  });

  it("closes the route's connection when the call's deadline passes", async () => {
    HangingController.reset();
    const app = await createApp(
      [McpModule.forRoot({ name: 'slow', version: '1.0.0', limits: { callTimeoutMs: 200 } })],
      [],
      adapter,
      [HangingController],
    );
    const client = createMcpTestClient(app);
    const exchange = await client.callTool('hang');
    expect(bare(exchange.result)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: Request timed out: no result within 200 ms' }],
    });
    await HangingController.closed;
    await client.close();
    await app.close();
  });

  it('never lets an in-process request re-enter the MCP endpoint', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'loop', version: '1.0.0' })], [], adapter);
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    const answer = await sendInProcess(app.getHttpServer(), {
      method: 'POST',
      path: '/mcp',
      headers: { host: 'localhost', 'content-type': 'application/json', 'content-length': String(body.length) },
      body,
      maxResponseBytes: 65536,
    });
    expect(answer.kind === 'complete' && answer.status).toBe(508);
    expect(answer.kind === 'complete' && JSON.parse(answer.body.toString()).error).toEqual({
      code: -32600,
      message: 'Loop Detected: a route tool cannot call the MCP endpoint',
    });
    await app.close();
  });
});
