import { ApplicationConfig, ExternalContextCreator } from '@nestjs/core';
import { ExternalExceptionFilterContext } from '@nestjs/core/exceptions/external-exception-filter-context.js';
import { GuardsConsumer, GuardsContextCreator } from '@nestjs/core/guards/index.js';
import type { NestContainer } from '@nestjs/core/injector/container.js';
import { InterceptorsConsumer, InterceptorsContextCreator } from '@nestjs/core/interceptors/index.js';
import { PipesConsumer, PipesContextCreator } from '@nestjs/core/pipes/index.js';

/**
 * Nest's `ExternalContextCreator` as `fromContainer` builds it, except that the guard and interceptor chains
 * are built without the application config, which is where the global ones come from: of the global guards,
 * only those `perCall` keeps (a rate limiter that counts each call, not the POST that carries it). The container
 * is the one Nest's own creator holds (it sets it as a property; test/unit/adapter-assumptions.spec.ts pins that).
 */
export function withoutGlobalGuardsAndInterceptors(
  nest: ExternalContextCreator,
  config: ApplicationConfig,
  perCall: (guard: unknown) => boolean,
): ExternalContextCreator {
  const container = (nest as unknown as { container: NestContainer }).container;
  const creator = new ExternalContextCreator(
    new PerCallGuardsContextCreator(container, config, perCall),
    new GuardsConsumer(),
    new InterceptorsContextCreator(container),
    new InterceptorsConsumer(),
    container.getModules(),
    new PipesContextCreator(container, config),
    new PipesConsumer(),
    new ExternalExceptionFilterContext(container, config),
  );
  (creator as unknown as { container: NestContainer }).container = container;
  return creator;
}

class PerCallGuardsContextCreator extends GuardsContextCreator {
  constructor(
    container: NestContainer,
    config: ApplicationConfig,
    private readonly perCall: (guard: unknown) => boolean,
  ) {
    super(container, config);
  }

  override getGlobalMetadata<T extends unknown[]>(...args: Parameters<GuardsContextCreator['getGlobalMetadata']>): T {
    return super.getGlobalMetadata<unknown[]>(...args).filter(this.perCall) as T;
  }
}
