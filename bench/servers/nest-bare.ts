import { Body, Controller, Module, Post, Req, Res, type INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHandDispatcher } from './hand-dispatch.js';
import { createNestApp, type AdapterName } from './nest-app.js';

/** Nest itself: a plain `@Post` route, the framework's JSON body parser, and the hand-written dispatcher. */
export async function startNestBare(adapter: AdapterName, toolCount: number): Promise<INestApplication> {
  const dispatch = createHandDispatcher(toolCount);

  @Controller()
  class BareController {
    @Post('mcp')
    handle(
      @Body() body: unknown,
      @Req() _req: IncomingMessage,
      @Res() res: ServerResponse & { raw?: ServerResponse },
    ): void {
      dispatch(body, res.raw ?? res);
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
