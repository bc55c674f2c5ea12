import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { McpRedisBackends } from './mcp-redis-backends.js';
import { McpRedisConfigurableModule, MCP_REDIS_OPTIONS } from './mcp-redis.module-definition.js';
import { McpRedisConnections } from './backends/redis-connections.js';
import type { McpRedisOptions } from './backends/redis-options.js';

/**
 * Redis for every part of an MCP server that several instances must share: listen-stream events, consumed
 * single-use request states, tasks, and the replies of 2025-era clients.
 *
 * ```ts
 * @Module({
 *   imports: [
 *     McpRedisModule.forRoot({ url: process.env.REDIS_URL, keyPrefix: 'weather:mcp:' }),
 *     McpModule.forRootAsync({
 *       inject: [McpRedisBackends],
 *       useFactory: (redis: McpRedisBackends) => ({
 *         name: 'weather',
 *         version: '1.0.0',
 *         ...redis,
 *         requestState: { ...redis.requestState, secret: process.env.MCP_STATE_SECRET },
 *       }),
 *     }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 */
@Module({
  providers: [
    {
      provide: McpRedisConnections,
      useFactory: (options: McpRedisOptions) => McpRedisConnections.open(options),
      inject: [MCP_REDIS_OPTIONS],
    },
    {
      provide: McpRedisBackends,
      useFactory: (connections: McpRedisConnections) => new McpRedisBackends(connections),
      inject: [McpRedisConnections],
    },
  ],
  exports: [McpRedisBackends, McpRedisConnections],
})
export class McpRedisModule extends McpRedisConfigurableModule implements OnApplicationShutdown {
  constructor(
    @Inject(McpRedisConnections) private readonly connections: McpRedisConnections,
    @Inject(McpRedisBackends) private readonly backends: McpRedisBackends,
  ) {
    super();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backends.close();
    await this.connections.close();
  }
}
