import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type INestApplication,
  type OnModuleInit,
} from '@nestjs/common';
import { MCPServer, McpModule, type McpContext, type McpModuleOptions } from '../../src/index.js';
import { ADD_TOOL, PROGRESS_STEPS, PROGRESS_TOOL, toolDefinitions } from '../fixtures.js';
import { createNestApp, type AdapterName } from './nest-app.js';

/**
 * This library: `McpModule` with the benchmark's tools registered at start-up. Lists come as one page of all
 * the tools, as in the other servers' responses, so the list rows compare the same payload; `paged` keeps the
 * library's default page size instead. `redis` configures every shared part in Redis (the machine's, or
 * BENCH_REDIS_URL), as a fleet instance would.
 */
export async function startNestMcp(
  adapter: AdapterName,
  toolCount: number,
  paged = false,
  redis = false,
): Promise<INestApplication> {
  @Injectable()
  class BenchTools implements OnModuleInit {
    constructor(@Inject(MCPServer) private readonly server: MCPServer) {}

    onModuleInit(): void {
      this.server.registerTool(
        ADD_TOOL.name,
        ADD_TOOL.description,
        ADD_TOOL.inputSchema,
        ({ a, b }: { a: number; b: number }) => a + b,
      );
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
    }
  }

  const options = { name: 'bench', version: '1.0.0', ...(paged ? {} : { pageSize: 1000 }) };
  @Module({ imports: redis ? await withRedis(options) : [McpModule.forRoot(options)], providers: [BenchTools] })
  class BenchModule {}

  return createNestApp(BenchModule, adapter);
}

/** The module set of a fleet instance; the Redis client is loaded only by the process that benchmarks it. */
async function withRedis(options: McpModuleOptions): Promise<DynamicModule[]> {
  const { McpRedisBackends, McpRedisModule } = await import('../../src/redis/index.js');
  return [
    McpRedisModule.forRoot({
      url: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
      keyPrefix: `nestjs-mcp-bench:${process.pid}:`,
    }),
    McpModule.forRootAsync({
      inject: [McpRedisBackends],
      useFactory: (backends: InstanceType<typeof McpRedisBackends>) => ({ ...options, ...backends }),
    }),
  ];
}
