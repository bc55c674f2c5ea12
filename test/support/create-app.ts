import type { DynamicModule, INestApplication, Provider, Type } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

export type HttpAdapterName = 'express' | 'fastify';
export const HTTP_ADAPTERS: readonly HttpAdapterName[] = ['express', 'fastify'];

/** Boots a real Nest app (Express by default, or Fastify) for supertest from the given imports and providers, not listening. */
export async function createApp(
  imports: Array<Type<unknown> | DynamicModule>,
  providers: Provider[] = [],
  adapter: HttpAdapterName = 'express',
  controllers: Type<unknown>[] = [],
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports, providers, controllers }).compile();
  if (adapter === 'express') {
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    return app;
  }
  const app = moduleRef.createNestApplication(new FastifyAdapter(), { logger: false });
  await app.init();
  // Fastify serves nothing until its plugins and routes are loaded.
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
