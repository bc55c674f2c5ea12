import type { Provider } from '@nestjs/common';
import { APP_GUARD, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { MCP_ROUTE_TOOL_METADATA } from '../mcp-metadata.constants.js';
import { RouteTargetGuard } from '../routes/route-target.guard.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';

/**
 * `RouteTargetGuard` as a global guard, only in an app that serves routes as tools. A global guard runs for
 * every route of the app, and Nest awaits a route's guards before its handler: an app without route tools has
 * no in-process request to check, so its routes (the MCP endpoint among them) should not pay for one. Nest skips
 * a global enhancer whose factory returns nothing. Decided from the controllers the container holds once the
 * modules are scanned, and from the `routes.controllers` option, which are where route tools come from.
 */
export const routeTargetGuardProvider: Provider = {
  provide: APP_GUARD,
  useFactory: (modules: ModulesContainer, options: McpModuleOptions) =>
    servesRoutes(modules, options) ? new RouteTargetGuard() : null,
  inject: [ModulesContainer, MCP_MODULE_OPTIONS],
};

function servesRoutes(modules: ModulesContainer, options: McpModuleOptions): boolean {
  if ((options.routes?.controllers?.length ?? 0) > 0) return true;
  const scanner = new MetadataScanner();
  for (const module of modules.values()) {
    for (const { metatype } of module.controllers.values()) {
      const prototype = (metatype as Function | null)?.prototype as Record<string, Function> | undefined;
      if (!prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype))
        if (Reflect.hasMetadata(MCP_ROUTE_TOOL_METADATA, prototype[name])) return true;
    }
  }
  return false;
}
