import { Controller, Get, Inject, Res, type Type } from '@nestjs/common';
import { decorateRoute } from '../endpoint/route-enhancers.js';
import { PlaygroundPage, type PlaygroundDocument } from './playground-page.js';

/** What Express's response and Fastify's reply both offer. */
interface HeaderSetter {
  status(code: number): unknown;
  header(name: string, value: string): unknown;
}

/**
 * Builds the controller of one server's playground, at `<path>/playground` beside its endpoint: a controller of
 * its own, so the app's global prefix, versioning and guards apply to it as to the endpoint, and the endpoint's
 * route and body handling stay as they are. It carries the endpoint's `http.routeDecorators` (`decorators`).
 */
export function createPlaygroundController(path: string, decorators: readonly ClassDecorator[]): Type<unknown> {
  @Controller(path)
  class McpPlaygroundController {
    constructor(@Inject(PlaygroundPage) private readonly documents: PlaygroundPage) {}

    @Get('playground')
    page(@Res({ passthrough: true }) res: HeaderSetter): string {
      return send(res, this.documents.page);
    }

    @Get('playground/bridge.js')
    bridge(@Res({ passthrough: true }) res: HeaderSetter): string {
      return send(res, this.documents.bridge);
    }

    @Get('playground/frame')
    frame(@Res({ passthrough: true }) res: HeaderSetter): string {
      return send(res, this.documents.frame);
    }
  }
  decorateRoute(McpPlaygroundController, decorators);
  return McpPlaygroundController;
}

function send(res: HeaderSetter, document: PlaygroundDocument): string {
  res.status(document.status);
  for (const [name, value] of Object.entries(document.headers)) res.header(name, value);
  return document.body;
}
