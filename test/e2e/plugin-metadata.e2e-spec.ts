import 'reflect-metadata';
import * as nestCommon from '@nestjs/common';
import * as classValidator from 'class-validator';
import { Module, type INestApplication, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import * as nestjsMcp from '../../src/index.js';
import { McpModule } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { compileWithPlugin, evaluate } from '../support/plugin-compile.js';

// Providers and a controller compiled with nestjs-mcp/plugin and run with the real decorators: the explorer fills in
// what each decorator leaves out from what the plugin derived, and what a decorator says itself wins.
const SOURCE = `
export interface Query {
  /** The city to look up */
  city: string;
  limit?: number;
}

export class Paging {
  limit: number = 10;
}

@Injectable()
export class DerivedTools {
  /** Plans a trip. */
  @Tool()
  plan(@Args('at') at: Date, @Args('page') page: Paging, @Args('stops') stops: { at: Date }[]) {
    const dates = stops.map((stop) => stop.at instanceof Date);
    return { isDate: at instanceof Date, at: at.toISOString(), limit: page.limit, dates };
  }

  /** Finds places. */
  @Tool()
  find(@Args() query: Query): { count: number } {
    return { count: query.city.length };
  }

  /** Derived description, replaced below. */
  @Tool({ name: 'explicit', description: 'Written by hand', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } })
  explicit(@Args('y') y: number) {
    return y;
  }

  /**
   * A city's weather, as a prompt.
   * @param city which city
   */
  @Prompt()
  report(@Args('city') city: string, @Args('style') style?: 'short' | 'long') {
    return 'Weather in ' + city + (style ?? '');
  }

  /** One city's forecast. */
  @ResourceTemplate({ uriTemplate: 'weather://{city}', name: 'forecast' })
  forecast(uri: string) {
    return uri;
  }
}

export class CreateOrderDto {
  /** The product's stock keeping unit */
  @IsNotEmpty()
  sku!: string;

  /** How many to order */
  @IsInt()
  quantity!: number;
}

@Injectable()
export class OrderTools {
  /** Places an order, as a plain tool. */
  @Tool()
  order(@Args() order: CreateOrderDto) {
    return order.sku;
  }
}

@Controller('orders')
export class OrdersController {
  /** The number of open orders. */
  @RouteTool()
  @Get('count')
  count(): { open: number } {
    return { open: 3 };
  }

  /**
   * Places an order.
   * @param channel - where the order comes from
   */
  @RouteTool()
  @Post()
  create(@Body() order: CreateOrderDto, @Query('channel') channel?: string) {
    return { sku: order.sku, channel };
  }
}
`;

describe('nestjs-mcp/plugin metadata in a running app', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const { app: outcome } = compileWithPlugin({ app: SOURCE });
    if (outcome.error) throw outcome.error;
    const exports = evaluate(outcome.js, {
      'nestjs-mcp': nestjsMcp,
      '@nestjs/common': nestCommon,
      'class-validator': classValidator,
    });
    @Module({
      imports: [McpModule.forRoot({ name: 'plugin', version: '1.0.0' })],
      providers: [exports.DerivedTools as Type<unknown>, exports.OrderTools as Type<unknown>],
      controllers: [exports.OrdersController as Type<unknown>],
    })
    class AppModule {}
    app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
    await app.init();
  }, 60_000);
  afterAll(() => app.close());

  it('lists tools with the derived schemas and descriptions, and a hand-written schema as written', async () => {
    const { result } = await createMcpTestClient(app).listTools();
    const tools = Object.fromEntries(result!.tools.map((tool) => [tool.name, tool]));
    expect(tools.find).toMatchObject({
      description: 'Finds places.',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string', description: 'The city to look up' }, limit: { type: 'number' } },
        required: ['city'],
      },
      outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
    });
    expect(tools.explicit).toMatchObject({
      description: 'Written by hand',
      inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
    });
    expect(tools.explicit.outputSchema).toBeUndefined();
    expect(tools.orders_count).toMatchObject({
      description: 'The number of open orders.',
      outputSchema: { type: 'object', properties: { open: { type: 'number' } }, required: ['open'] },
    });
  });

  it("gives a route tool's DTO and query keys the descriptions a plain tool's arguments get from the comments", async () => {
    const { result } = await createMcpTestClient(app).listTools();
    const tools = Object.fromEntries(result!.tools.map((tool) => [tool.name, tool]));
    const described = {
      sku: expect.objectContaining({ description: "The product's stock keeping unit" }),
      quantity: expect.objectContaining({ description: 'How many to order' }),
    };
    expect(tools.order.inputSchema.properties).toEqual(described);
    expect(tools.orders_create).toMatchObject({
      description: 'Places an order.',
      inputSchema: {
        properties: {
          ...described,
          channel: expect.objectContaining({ description: 'where the order comes from' }),
        },
      },
    });
    const called = await createMcpTestClient(app).callTool('orders_create', {
      sku: 'A-1',
      quantity: 2,
      channel: 'web',
    });
    expect(
      called.result?.structuredContent ?? JSON.parse((called.result?.content[0] as { text: string }).text),
    ).toEqual({ sku: 'A-1', channel: 'web' });
  });

  it('validates calls against the derived schema and returns structured content by the derived output schema', async () => {
    const mcp = createMcpTestClient(app);
    const wrong = await mcp.callTool('find', { city: 7 });
    expect(wrong.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('"city"') }],
    });
    const right = await mcp.callTool('find', { city: 'Oslo' });
    expect(right.result?.structuredContent).toEqual({ count: 4 });
  });

  it('gives the method a Date for a Date argument and a property initializer default left out', async () => {
    const { result } = await createMcpTestClient(app).callTool('plan', {
      at: '2026-12-05T10:00:00+01:00',
      page: {},
      stops: [{ at: '2026-12-06T08:00:00Z' }],
    });
    expect(result?.structuredContent).toEqual({
      isDate: true,
      at: '2026-12-05T09:00:00.000Z',
      limit: 10,
      dates: [true],
    });
  });

  it('lists the prompt with its derived arguments and the template with its derived description', async () => {
    const mcp = createMcpTestClient(app);
    const prompts = await mcp.listPrompts();
    expect(prompts.result?.prompts).toEqual([
      {
        name: 'report',
        description: "A city's weather, as a prompt.",
        arguments: [
          { name: 'city', description: 'which city', required: true },
          { name: 'style', required: false },
        ],
      },
    ]);
    const templates = await mcp.request<{ resourceTemplates: Array<Record<string, unknown>> }>(
      'resources/templates/list',
    );
    expect(templates.result?.resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'weather://{city}', description: "One city's forecast." }),
    ]);
  });
});
