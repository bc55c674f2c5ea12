import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpRedisOptions } from './backends/redis-options.js';
import type { McpRedisModuleExtras } from './mcp-redis-options.interface.js';

export const {
  ConfigurableModuleClass: McpRedisConfigurableModule,
  MODULE_OPTIONS_TOKEN: MCP_REDIS_OPTIONS,
  OPTIONS_TYPE: MCP_REDIS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_REDIS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpRedisOptions>()
  .setClassMethodName('forRoot')
  // Global by default, like BullModule.forRoot: one Redis per app, injected where McpModule is configured.
  .setExtras<McpRedisModuleExtras>({ isGlobal: true }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
