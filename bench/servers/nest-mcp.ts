import {
  Controller,
  Get,
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type INestApplication,
  type OnModuleInit,
  Param,
  ParseIntPipe,
  UseGuards,
} from '@nestjs/common';
import type { McpContext, McpModuleOptions, MCPServer as McpServerApi } from '../../src/index.js';
import {
  ADD_TOOL,
  ASK_NAME_TOOL,
  COUNT_ITEMS_TOOL,
  NAME_FORM,
  PROGRESS_STEPS,
  PROGRESS_TOOL,
  toolDefinitions,
} from '../fixtures.js';
import { installedPackage, installedRedis } from './installed-package.js';
import { createNestApp, type AdapterName } from './nest-app.js';

/**
 * This library: `McpModule` with the benchmark's tools registered at start-up. Lists come as one page of all
 * the tools, as in the other servers' responses, so the list rows compare the same payload; `paged` keeps the
 * library's default page size instead. `redis` configures every shared part in Redis (the machine's, or
 * BENCH_REDIS_URL), as a fleet instance would. `elicit` adds the tools of the input rounds: `ask_name`, and the
 * same with `singleUseState` (`ask_name_once`), whose retry consumes its state in the request-state store.
 * `features` configures what a plain call should never pay for: an MCP Apps UI resource and a REST route served
 * as a route tool. `stateful` gives 2025-era clients sessions (`legacy.mode: 'stateful'`). `decorated` declares
 * `add` as users mostly do, a `@Tool` method of a provider, instead of with `registerTool`; `shape` adds the
 * argument-shape rows' `count_items`; `throttled` puts that `add` behind `McpThrottlerGuard`, under a limit no run
 * reaches. The library is the built package (`installed-package.ts`).
 */
export async function startNestMcp(
  adapter: AdapterName,
  toolCount: number,
  paged = false,
  redis = false,
  elicit = false,
  features = false,
  stateful = false,
  decorated = false,
  shape = false,
  throttled = false,
): Promise<INestApplication> {
  const { Args, MCPServer, McpModule, McpThrottlerGuard, RouteTool, Tool } = await installedPackage();
  @Injectable()
  class DecoratedTools {
    @Tool({ name: ADD_TOOL.name, description: ADD_TOOL.description, inputSchema: ADD_TOOL.inputSchema })
    add(@Args() { a, b }: { a: number; b: number }): number {
      return a + b;
    }
  }
  if (throttled) UseGuards(McpThrottlerGuard)(DecoratedTools);

  @Injectable()
  class BenchTools implements OnModuleInit {
    constructor(@Inject(MCPServer) private readonly server: McpServerApi) {}

    onModuleInit(): void {
      if (!decorated) {
        this.server.registerTool(
          ADD_TOOL.name,
          ADD_TOOL.description,
          ADD_TOOL.inputSchema,
          ({ a, b }: { a: number; b: number }) => a + b,
        );
      }
      if (shape) {
        this.server.registerTool(
          COUNT_ITEMS_TOOL.name,
          COUNT_ITEMS_TOOL.description,
          COUNT_ITEMS_TOOL.inputSchema,
          ({ items }: { items: unknown[] }) => items.length,
        );
      }
      this.server.registerTool(
        PROGRESS_TOOL.name,
        PROGRESS_TOOL.description,
        PROGRESS_TOOL.inputSchema,
        (_args: unknown, _answers: unknown, ctx: McpContext) => {
          for (const progress of PROGRESS_STEPS) ctx.reportProgress({ progress, total: PROGRESS_STEPS.length });
          return 'done';
        },
      );
      for (const tool of toolDefinitions(toolCount).slice(2)) {
        this.server.registerTool(tool.name, tool.description, tool.inputSchema, () => 'no matches');
      }
      if (features) {
        this.server.addUiResource({
          uri: 'ui://bench/card.html',
          name: 'card',
          html: '<!doctype html><html><body><div id="card"></div></body></html>',
          csp: { connectDomains: ['https://api.example.com'] },
        });
      }
      if (!elicit) return;
      for (const singleUseState of [false, true]) {
        this.server.addTool({
          ...ASK_NAME_TOOL,
          name: singleUseState ? `${ASK_NAME_TOOL.name}_once` : ASK_NAME_TOOL.name,
          singleUseState,
          handler: async (_args, _answers, ctx) => {
            const reply = await ctx.elicit('What is your name?', NAME_FORM, { key: 'name' });
            return `Hello, ${String(reply.content?.name)}!`;
          },
        });
      }
    }
  }

  const options: McpModuleOptions = {
    name: 'bench',
    version: '1.0.0',
    ...(paged ? {} : { limits: { pageSize: 1000 } }),
    // Instances that share a fleet share the key that seals request states, so any of them opens any state.
    requestState: { secret: process.env.BENCH_STATE_SECRET },
    ...(stateful ? { legacy: { mode: 'stateful' } } : {}),
  };
  @Controller('orders')
  class OrdersController {
    @Get(':id')
    @RouteTool({ name: 'route_lookup', description: 'One order, from the REST API' })
    findOne(@Param('id', ParseIntPipe) id: number): Record<string, unknown> {
      return { id, item: 'tea' };
    }
  }

  @Module({
    imports: [
      ...(redis ? await withRedis(options) : [McpModule.forRoot(options)]),
      ...(throttled ? [await throttlerModule()] : []),
    ],
    controllers: features ? [OrdersController] : [],
    providers: decorated ? [BenchTools, DecoratedTools] : [BenchTools],
  })
  class BenchModule {}

  const app = await createNestApp(BenchModule, adapter);
  if (redis) await listeningOnRedis(app);
  return app;
}

/**
 * The throttler's own module with its in-memory storage, loaded only by the process that benchmarks the guard. That
 * storage keeps one expiry per hit in a caller's window and scans them all on each hit: a window of a minute under a
 * load of thousands of calls a second would measure that scan (milliseconds a call at tens of thousands of hits), not
 * the guard. At that load a window of 20 ms holds about the hundred hits a caller under a limit of 100 a minute keeps.
 */
async function throttlerModule(): Promise<DynamicModule> {
  const { ThrottlerModule } = await import('@nestjs/throttler');
  return ThrottlerModule.forRoot({ throttlers: [{ name: 'default', ttl: 20, limit: Number.MAX_SAFE_INTEGER }] });
}

/** The module set of a fleet instance; the Redis client is loaded only by the process that benchmarks it. */
async function withRedis(options: McpModuleOptions): Promise<DynamicModule[]> {
  const { McpModule } = await installedPackage();
  const { McpRedisBackends, McpRedisModule } = await installedRedis();
  return [
    McpRedisModule.forRoot({
      url: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
      // A fleet's instances share one prefix (BENCH_REDIS_PREFIX); a lone instance keeps to its own.
      keyPrefix: process.env.BENCH_REDIS_PREFIX ?? `nestjs-mcp-bench:${process.pid}:`,
    }),
    McpModule.forRootAsync({
      inject: [McpRedisBackends],
      useFactory: (backends: InstanceType<typeof McpRedisBackends>) => ({
        ...options,
        ...backends,
        requestState: { ...options.requestState, ...backends.requestState },
      }),
    }),
  ];
}

/** Waits until every channel is subscribed, so the first request measured can already be routed through Redis. */
async function listeningOnRedis(app: INestApplication): Promise<void> {
  const { McpRedisBackends } = await installedRedis();
  const backends = app.get(McpRedisBackends);
  const deadline = Date.now() + 10_000;
  while (!backends.listening) {
    if (Date.now() > deadline) throw new Error('the Redis backends did not subscribe within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
