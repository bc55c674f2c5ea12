import type { Provider } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { MCP_ENDPOINT_METADATA, MCP_ROUTE_TOOL_METADATA } from '../mcp-metadata.constants.js';
import { RouteTargetGuard } from '../routes/route-target.guard.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';

const ROUTE_TARGET_GUARDS = Symbol('RouteTargetGuards');

/**
 * `RouteTargetGuard` on every controller of an app that serves routes as tools, ahead of the controller's own
 * guards, except the MCP endpoint's. It is not a global guard: Nest runs a route's guards in a promise chain
 * of its own, which the endpoint would then pay on every call for a check it does not need (it refuses an
 * in-process request itself, HTTP 508), and an app without route tools pays for it on no route at all. Added
 * while Nest creates the providers, after the modules are scanned and before it builds the routes, from the
 * controllers the container holds and the `routes.controllers` option, which are where route tools come from.
 */
export const routeTargetGuardProvider: Provider = {
  provide: ROUTE_TARGET_GUARDS,
  useFactory: (modules: ModulesContainer, options: McpModuleOptions) => {
    const controllers = [...modules.values()].flatMap((module) =>
      [...module.controllers.values()].map(({ metatype }) => metatype as Function | null),
    );
    if (!servesRoutes(controllers, options)) return false;
    const guard = new RouteTargetGuard();
    for (const controller of controllers) {
      if (!controller || Reflect.getMetadata(MCP_ENDPOINT_METADATA, controller) === true) continue;
      const guards = (Reflect.getMetadata(GUARDS_METADATA, controller) as unknown[] | undefined) ?? [];
      // Another McpModule of the app (or an earlier app in the same process) may have added one already.
      if (guards.some((declared) => declared instanceof RouteTargetGuard)) continue;
      Reflect.defineMetadata(GUARDS_METADATA, [guard, ...guards], controller);
    }
    return true;
  },
  inject: [ModulesContainer, MCP_MODULE_OPTIONS],
};

function servesRoutes(controllers: ReadonlyArray<Function | null>, options: McpModuleOptions): boolean {
  if ((options.routes?.controllers?.length ?? 0) > 0) return true;
  const scanner = new MetadataScanner();
  for (const controller of controllers) {
    const prototype = controller?.prototype as Record<string, Function> | undefined;
    if (!prototype) continue;
    for (const name of scanner.getAllMethodNames(prototype))
      if (Reflect.hasMetadata(MCP_ROUTE_TOOL_METADATA, prototype[name])) return true;
  }
  return false;
}
