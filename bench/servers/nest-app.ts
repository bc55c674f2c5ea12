import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { PrototypeExpressAdapter } from './prototype-express-adapter.js';

/**
 * Express with Nest's default adapter, Express with `PrototypeExpressAdapter` (the bench's own copy of the recipe in
 * docs/performance.md), or Fastify.
 */
export type AdapterName = 'express' | 'express-prototype' | 'fastify';

/** A Nest app of `module` on the named adapter, not yet listening, without logs; `bodyLimit` for Fastify's own. */
export function createNestApp(
  module: Type<unknown>,
  adapter: AdapterName,
  bodyLimit?: number,
): Promise<INestApplication> {
  switch (adapter) {
    case 'fastify':
      return NestFactory.create(module, new FastifyAdapter(bodyLimit ? { bodyLimit } : {}), { logger: false });
    case 'express-prototype':
      return NestFactory.create(module, new PrototypeExpressAdapter(), { logger: false });
    case 'express':
      return NestFactory.create(module, { logger: false });
  }
}
