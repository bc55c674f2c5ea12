import type { DynamicModule, INestApplication, Provider, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';

/** Boots a real Nest app (Express) for supertest from the given imports and providers, not listening. */
export async function createApp(imports: Array<Type<unknown> | DynamicModule>, providers: Provider[] = []): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports, providers }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}
