import { ConfigurableModuleBuilder, type Provider } from '@nestjs/common';
import { createMcpController } from './mcp.controller.js';
import type { McpModuleExtras, McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_ENDPOINT_PATH, MCP_IS_DEFAULT, MCP_SERVER } from './mcp.constants.js';
import { getMcpServerToken } from './mcp-server.token.js';
import { MCPServer } from './mcp.server.js';

export const {
  ConfigurableModuleClass: McpConfigurableModule,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>()
  .setClassMethodName('forRoot')
  // `name` has no default on purpose: a key listed here is taken out of `forRoot`'s options, and `forRoot`'s
  // `name` is the server's own name. So `forRoot` passes it through, and `forRootAsync` takes it as an extra.
  .setExtras<McpModuleExtras>({ path: '/mcp', isGlobal: false, isDefault: true }, (definition, extras) => {
    const tokens = serverTokens(extras);
    return {
      ...definition,
      global: extras.isGlobal,
      // A controller class per server, so several servers can live in one app at different paths.
      controllers: [...(definition.controllers ?? []), createMcpController(extras.path)],
      providers: [
        ...(definition.providers ?? []),
        { provide: MCP_ENDPOINT_PATH, useValue: extras.path },
        { provide: MCP_IS_DEFAULT, useValue: extras.isDefault },
        ...tokens.map((token): Provider => ({ provide: token, useExisting: MCP_SERVER })),
      ],
      exports: [...(definition.exports ?? []), ...tokens],
    };
  })
  .build();

/**
 * The tokens this server is injectable under: its name's token, and the `MCPServer` class when it is the
 * default server. Only the default provides the class token, so constructor injection and `app.get(MCPServer)`
 * cannot disagree about which server it is.
 */
function serverTokens(extras: McpModuleExtras): Array<string | typeof MCPServer> {
  const tokens: Array<string | typeof MCPServer> = [];
  if (extras.name) tokens.push(getMcpServerToken(extras.name));
  if (extras.isDefault) tokens.push(MCPServer);
  return tokens;
}
