import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import { VersioningType } from '@nestjs/common';
import { ContextIdFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { COOKIE_SECRET } from './session.guard';
import { AggregateByTenantContextIdStrategy } from './tenant';

/** What main.ts does to the app, shared with the e2e tests so they run the app as it is deployed. */
export async function configureApp(app: NestFastifyApplication): Promise<NestFastifyApplication> {
  ContextIdFactory.apply(new AggregateByTenantContextIdStrategy());
  app.enableVersioning({ type: VersioningType.HEADER, header: 'X-API-Version' });
  await app.register(fastifyHelmet);
  await app.register(fastifyCompress);
  await app.register(fastifyCookie, { secret: COOKIE_SECRET });
  return app;
}
