import { Body, Controller, Module, Post, Req, Res, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHandDispatcher } from './hand-dispatch.js';

export type AdapterName = 'express' | 'fastify';

/** Nest itself: a plain `@Post` route, the framework's JSON body parser, and the hand-written dispatcher. */
export async function startNestBare(adapter: AdapterName, toolCount: number): Promise<INestApplication> {
  const dispatch = createHandDispatcher(toolCount);

  @Controller()
  class BareController {
    @Post('mcp')
    handle(@Body() body: unknown, @Req() req: IncomingMessage, @Res() res: ServerResponse & { raw?: ServerResponse }): void {
      dispatch(body, res.raw ?? res);
    }
  }

  @Module({ controllers: [BareController] })
  class BareModule {}

  return adapter === 'fastify'
    ? NestFactory.create(BareModule, new FastifyAdapter(), { logger: false })
    : NestFactory.create(BareModule, { logger: false });
}
