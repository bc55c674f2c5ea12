import type { Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
} from '@nestjs/common/constants.js';
import { createContextId, type ModuleRef } from '@nestjs/core';
import { UndefinedDependencyException } from '@nestjs/core/errors/exceptions/undefined-dependency.exception.js';
import { UnknownDependenciesException } from '@nestjs/core/errors/exceptions/unknown-dependencies.exception.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { ROUTE_PIPE, UNRESOLVED_ROUTE_ENHANCER } from '../mcp-messages.js';

const KINDS = [
  [GUARDS_METADATA, 'guard'],
  [INTERCEPTORS_METADATA, 'interceptor'],
  [EXCEPTION_FILTERS_METADATA, 'exception filter'],
  [PIPES_METADATA, 'pipe'],
] as const;

/**
 * Puts `http.routeDecorators` on one of the module's controllers when the module is defined, as if written on
 * it: Nest's scanner then finds the enhancer classes they name and builds them with the module's providers,
 * exactly as for a controller of the app. Set any later, a class would be looked up among instances Nest never
 * made, and skipped without a word.
 */
export function decorateRoute(controller: Type<unknown>, decorators: readonly ClassDecorator[]): void {
  for (const decorator of decorators) decorator(controller);
}

/**
 * Refuses, at start-up, an enhancer of `http.routeDecorators` that cannot work: a pipe (the routes take no
 * argument it could see), or a class whose dependencies McpModule cannot resolve. Run by a provider of McpModule,
 * so before Nest builds the module's enhancers and fails on the same class with a message about a module the
 * app never wrote.
 */
export async function checkRouteEnhancers(moduleRef: ModuleRef, decorators: readonly ClassDecorator[]): Promise<void> {
  class Probe {}
  decorateRoute(Probe, decorators);
  for (const [key, kind] of KINDS) {
    for (const enhancer of (Reflect.getMetadata(key, Probe) as unknown[] | undefined) ?? []) {
      const name = typeof enhancer === 'function' ? enhancer.name : (enhancer as object).constructor.name;
      if (kind === 'pipe') throw new McpConfigurationError(ROUTE_PIPE(name));
      // An instance is used as it is; only a class is built.
      if (typeof enhancer !== 'function') continue;
      try {
        // In a context of its own, where a request-scoped dependency is built once for the check: in the static
        // one it is not built at all, and Nest 11's create() then never settles.
        await moduleRef.create(standIn(enhancer as Type<unknown>), createContextId());
      } catch (error) {
        if (error instanceof UnknownDependenciesException || error instanceof UndefinedDependencyException) {
          throw new McpConfigurationError(UNRESOLVED_ROUTE_ENHANCER(kind, name, error.message.split('\n')[0]));
        }
        // Anything else is for Nest to judge when it builds the enhancer for the route.
      }
    }
  }
}

/**
 * Stands for `enhancer` before the injector, which reads its dependencies through the prototype chain as for
 * the class itself, and is built without running the enhancer's constructor (Nest builds the enhancer once).
 */
function standIn(enhancer: Type<unknown>): Type<unknown> {
  const type = function () {} as unknown as Type<unknown>;
  Object.setPrototypeOf(type, enhancer);
  type.prototype = enhancer.prototype;
  Object.defineProperty(type, 'name', { value: enhancer.name });
  return type;
}
