import { ConfigurableModuleBuilder, type Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { createMcpController } from '../endpoint/mcp.controller.js';
import { checkRouteEnhancers } from '../endpoint/route-enhancers.js';
import type { McpModuleExtras, McpModuleOptions } from './mcp-module-options.interface.js';
import {
  MCP_CONTROLLER,
  MCP_ENDPOINT_PATH,
  MCP_IS_DEFAULT,
  MCP_KERNEL,
  MCP_PLAYGROUND_CONTROLLER,
  MCP_ROUTE_DECORATORS,
  MCP_SERVER,
} from '../mcp.constants.js';
import { ROUTE_DECORATORS_FROM_FACTORY } from '../mcp-messages.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { createPlaygroundController } from '../playground/playground.controller.js';
import { playgroundEnabled } from '../playground/playground-options.interface.js';
import { playgroundPageProvider } from '../playground/playground.provider.js';
import { getMcpServerToken } from '../mcp-server.token.js';
import { getMcpTransportToken, type McpTransportTarget } from './mcp-transport.token.js';
import type { McpKernel } from '../../server/kernel/mcp-kernel.js';

export const {
  ConfigurableModuleClass: McpConfigurableModule,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>()
  .setClassMethodName('forRoot')
  // `name` has no default on purpose: a key listed here is taken out of `forRoot`'s options, and `forRoot`'s
  // `name` is the server's own name. So `forRoot` passes it through, and `forRootAsync` takes it as an extra.
  .setExtras<McpModuleExtras>(
    { path: '/mcp', isGlobal: false, isDefault: true, playground: false },
    (definition, extras) => {
      const names = serverNames(extras);
      const tokens = names.map(getMcpServerToken);
      // forRoot's whole `http`, or what forRootAsync has beside its factory: Nest reads them before any factory runs.
      const decorators = extras.http?.routeDecorators ?? [];
      // A controller class per server, so several servers can live in one app at different paths.
      const controller = createMcpController(extras.path, decorators);
      // Only when asked for: an app without it registers no route and reads no page.
      const playground = playgroundEnabled(extras.playground)
        ? createPlaygroundController(extras.path, decorators)
        : null;
      return {
        ...definition,
        global: extras.isGlobal,
        controllers: [...(definition.controllers ?? []), controller, ...(playground ? [playground] : [])],
        providers: [
          ...(definition.providers ?? []),
          { provide: MCP_CONTROLLER, useValue: controller },
          { provide: MCP_PLAYGROUND_CONTROLLER, useValue: playground },
          ...(playground ? [playgroundPageProvider(extras.playground)] : []),
          routeDecoratorsProvider(decorators),
          { provide: MCP_ENDPOINT_PATH, useValue: extras.path },
          { provide: MCP_IS_DEFAULT, useValue: extras.isDefault },
          ...tokens.map((token): Provider => ({ provide: token, useExisting: MCP_SERVER })),
          // Not exported: `bootstrapStdio` resolves them from the whole app.
          ...names.map((name): Provider => ({
            provide: getMcpTransportToken(name),
            useFactory: (kernel: McpKernel, options: McpModuleOptions): McpTransportTarget => ({
              kernel,
              options,
              path: extras.path,
            }),
            inject: [MCP_KERNEL, MCP_MODULE_OPTIONS],
          })),
        ],
        exports: [...(definition.exports ?? []), ...tokens],
      };
    },
  )
  .build();

/**
 * The route decorators the controllers carry, checked before Nest builds the enhancers they name. In forRoot's
 * options they are the same array; a factory's own would be read too late to be on the routes.
 */
function routeDecoratorsProvider(decorators: readonly ClassDecorator[]): Provider {
  return {
    provide: MCP_ROUTE_DECORATORS,
    useFactory: async (moduleRef: ModuleRef, options: McpModuleOptions) => {
      const given = options.http?.routeDecorators;
      if (given !== undefined && given.length > 0 && given !== decorators)
        throw new McpConfigurationError(ROUTE_DECORATORS_FROM_FACTORY);
      await checkRouteEnhancers(moduleRef, decorators);
      return decorators;
    },
    inject: [ModuleRef, MCP_MODULE_OPTIONS],
  };
}

/**
 * The names this server answers to: its name, and no name (the default server's tokens: the `MCPServer` class,
 * the unnamed transport) when it is the default. Only the default provides the unnamed tokens, so constructor
 * injection, `app.get(MCPServer)` and `bootstrapStdio` cannot disagree about which server it is.
 */
function serverNames(extras: McpModuleExtras): Array<string | undefined> {
  const names: Array<string | undefined> = [];
  if (extras.name) names.push(extras.name);
  if (extras.isDefault) names.push(undefined);
  return names;
}
