import { Body, Controller, Module, Post, Req, Res, type INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createCheckedDispatcher } from './checked-dispatch.js';
import { createHandDispatcher } from './hand-dispatch.js';
import { createNestApp, type AdapterName } from './nest-app.js';

/**
 * Nest itself: a plain `@Post` route, the framework's JSON body parser, and the hand-written dispatcher; with
 * `checked`, the dispatcher behind the rules the protocol asks of every call (`checked-dispatch.ts`).
 */
export async function startNestBare(
  adapter: AdapterName,
  toolCount: number,
  checked = false,
): Promise<INestApplication> {
  const hand = createHandDispatcher(toolCount);
  const conforming = checked ? createCheckedDispatcher() : undefined;

  @Controller()
  class BareController {
    @Post('mcp')
    handle(
      @Body() body: unknown,
      @Req() req: IncomingMessage & { raw?: IncomingMessage },
      @Res() res: ServerResponse & { raw?: ServerResponse },
    ): void {
      if (conforming) conforming(body, req.raw ?? req, res.raw ?? res);
      else hand(body, res.raw ?? res);
    }
  }

  @Module({ controllers: [BareController] })
  class BareModule {}

  // Fastify's default body limit is 1 MiB, Express's 100 kB: the 1 MB argument and the argument-shape cases need
  // the room this library gives by default (4 MiB) on both.
  const app = await createNestApp(BareModule, adapter, 4 * 2 ** 20);
  if (adapter !== 'fastify') (app as NestExpressApplication).useBodyParser('json', { limit: '4mb' });
  return app;
}
