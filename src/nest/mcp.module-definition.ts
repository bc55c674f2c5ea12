import { ConfigurableModuleBuilder } from '@nestjs/common';
import { createMcpController } from './mcp.controller.js';
import type { McpModuleExtras, McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_ENDPOINT_PATH } from './mcp.constants.js';

export const {
  ConfigurableModuleClass: McpConfigurableModule,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras<McpModuleExtras>({ path: '/mcp', isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
    // A controller class per server, so several servers can live in one app at different paths.
    controllers: [...(definition.controllers ?? []), createMcpController(extras.path)],
    providers: [...(definition.providers ?? []), { provide: MCP_ENDPOINT_PATH, useValue: extras.path }],
  }))
  .build();
