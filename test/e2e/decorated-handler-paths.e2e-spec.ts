import 'reflect-metadata';
import {
  BadRequestException,
  Controller,
  Get,
  Injectable,
  NotFoundException,
  Param,
  type INestApplication,
} from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, ModulesContainer } from '@nestjs/core';
import { MCP_ENDPOINT_METADATA } from '../../src/nest/mcp-metadata.constants.js';
import { RouteTargetGuard } from '../../src/nest/routes/route-target.guard.js';
import { Args, McpModule, Prompt, Resource, ResourceTemplate, RouteTool, Tool } from '../../src/index.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';

/**
 * Decorated methods without enhancers are called directly: a synchronous one answers synchronously, an async one
 * through its promise. Either way a thrown or rejected HttpException becomes the answer that fits its kind.
 */
@Injectable()
class PlainMethods {
  @Tool({ name: 'sum', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } })
  sum(@Args() { a, b }: { a: number; b: number }): number {
    return a + b;
  }

  @Tool({ name: 'refuse_now' })
  refuseNow(): string {
    throw new BadRequestException('not like that');
  }

  @Tool({ name: 'refuse_later' })
  async refuseLater(): Promise<string> {
    await Promise.resolve();
    throw new BadRequestException('not like that either');
  }

  @Tool({ name: 'crash_now' })
  crashNow(): string {
    throw new Error('disk on fire');
  }

  @ResourceTemplate({ uriTemplate: 'item://{id}', name: 'item' })
  item(@Args('id') id: string): string {
    if (id !== '1') throw new NotFoundException(`no item ${id}`);
    return 'item 1';
  }

  @Resource({ uri: 'item://broken', name: 'broken' })
  broken(): string {
    throw new BadRequestException('broken on purpose');
  }

  @Prompt({ name: 'strict', arguments: [{ name: 'word', required: true }] })
  strict(@Args('word') word: string): string {
    if (word !== 'please') throw new BadRequestException('say please');
    return `you said ${word}`;
  }
}

@Controller('orders')
class OrdersController {
  @Get(':id')
  @RouteTool()
  findOne(@Param('id') id: string): { id: string } {
    return { id };
  }
}

/** Served as tools only by being listed in `routes.controllers`: no `@RouteTool` of its own. */
@Controller('invoices')
class InvoicesController {
  @Get(':id')
  findOne(@Param('id') id: string): { id: string } {
    return { id };
  }
}

describe.each(HTTP_ADAPTERS)('decorated methods called directly (%s)', (adapter) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'paths', version: '1.0.0' })], [PlainMethods], adapter);
  });
  afterAll(() => app.close());

  const post = (method: string, params: Record<string, unknown>) =>
    createMcpTestClient(app).post(mcpMessage(method, params));

  it('answers a synchronous tool with its value', async () => {
    const res = await post('tools/call', { name: 'sum', arguments: { a: 2, b: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('turns an HttpException a tool throws, or rejects with, into an error result', async () => {
    const now = await post('tools/call', { name: 'refuse_now', arguments: {} });
    expect(now.body.result).toMatchObject({ isError: true, content: [{ text: 'Error: not like that' }] });
    const later = await post('tools/call', { name: 'refuse_later', arguments: {} });
    expect(later.body.result).toMatchObject({ isError: true, content: [{ text: 'Error: not like that either' }] });
  });

  it('turns any other error a tool throws into an error result, as for a registered tool', async () => {
    const res = await post('tools/call', { name: 'crash_now', arguments: {} });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ isError: true, content: [{ text: 'Error: disk on fire' }] });
  });

  it('turns a 404 from a resource into "Resource not found" and another 4xx into its message', async () => {
    const found = await post('resources/read', { uri: 'item://1' });
    expect(found.body.result.contents[0].text).toBe('item 1');
    const missing = await post('resources/read', { uri: 'item://7' });
    expect(missing.body.error).toMatchObject({ code: -32602, message: 'Resource not found: item://7' });
    const broken = await post('resources/read', { uri: 'item://broken' });
    expect(broken.body.error).toMatchObject({ code: -32602, message: 'Error: broken on purpose' });
  });

  it('turns a 4xx from a prompt into invalid params', async () => {
    const refused = await post('prompts/get', { name: 'strict', arguments: { word: 'now' } });
    expect(refused.body.error).toMatchObject({ code: -32602, message: 'Error: say please' });
    const granted = await post('prompts/get', { name: 'strict', arguments: { word: 'please' } });
    expect(granted.body.result.messages[0].content.text).toBe('you said please');
  });
});

describe('the route-target guard', () => {
  const globalGuards = (app: INestApplication) => app.get(ApplicationConfig).getGlobalGuards().filter(Boolean);
  /** Of each controller of the app, whether its guards hold the route-target guard. */
  const guarded = (app: INestApplication) =>
    [...app.get(ModulesContainer).values()].flatMap((module) =>
      [...module.controllers.values()].map(({ metatype }) => ({
        endpoint: Reflect.getMetadata(MCP_ENDPOINT_METADATA, metatype!) === true,
        name: metatype!.name,
        guarded: ((Reflect.getMetadata(GUARDS_METADATA, metatype!) as unknown[] | undefined) ?? []).some(
          (guard) => guard instanceof RouteTargetGuard,
        ),
      })),
    );

  it('is not installed in an app that serves no route as a tool, so its routes run no extra guard', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'plain', version: '1.0.0' })], [PlainMethods]);
    try {
      expect(globalGuards(app)).toHaveLength(0);
      expect(guarded(app).filter((controller) => controller.guarded)).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('guards every controller but the MCP endpoint once one declares a route tool, and the tool reaches its route', async () => {
    const app = await createApp([McpModule.forRoot({ name: 'routes', version: '1.0.0' })], [], 'express', [
      OrdersController,
    ]);
    try {
      // Not global: the endpoint would pay Nest's guard chain on every call for a check it makes itself (508).
      expect(globalGuards(app)).toHaveLength(0);
      const controllers = guarded(app);
      expect(controllers.find((controller) => controller.endpoint)).toMatchObject({ guarded: false });
      expect(controllers.filter((controller) => !controller.endpoint).every((c) => c.guarded)).toBe(true);
      expect(controllers.map((controller) => controller.name)).toContain('OrdersController');
      const res = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'orders_find_one', arguments: { id: '42' } }),
      );
      expect(res.body.result.isError).toBeFalsy();
      expect(JSON.stringify(res.body.result.content)).toContain('42');
    } finally {
      await app.close();
    }
  });

  it('is installed when the routes.controllers option lists a controller', async () => {
    const app = await createApp(
      [McpModule.forRoot({ name: 'listed', version: '1.0.0', routes: { controllers: [InvoicesController] } })],
      [],
      'express',
      [InvoicesController],
    );
    try {
      expect(guarded(app).find((controller) => controller.name === 'InvoicesController')).toMatchObject({
        guarded: true,
      });
    } finally {
      await app.close();
    }
  });
});
