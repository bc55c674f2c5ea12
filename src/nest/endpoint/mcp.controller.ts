import { All, Controller, Inject, Req, Res, UseFilters, type Type } from '@nestjs/common';
import { McpHttpDriver } from '../../http/mcp-http-driver.js';
import { serveRoute, type FrameworkRequest, type FrameworkResponse } from '../../http/front/front-layer.js';
import { McpUnauthorizedFilter } from './mcp-unauthorized.filter.js';
import { decorateRoute } from './route-enhancers.js';
import { MCP_ENDPOINT_METADATA } from '../mcp-metadata.constants.js';

// `@ApiExcludeController()` of @nestjs/swagger stores `[true]` under this key; setting it ourselves keeps the
// endpoint out of the app's OpenAPI document without depending on swagger. It is not a REST resource: one POST
// whose body is JSON-RPC, which an OpenAPI operation would only misdescribe.
const SWAGGER_EXCLUDE_CONTROLLER = 'swagger/apiExcludeController';

/**
 * Builds the controller of one MCP server at `path`. It is a thin driver call: all the transport rules live in
 * `McpHttpDriver`. Being a real controller keeps the endpoint inside Nest's pipeline, so global middleware,
 * guards and the global prefix apply to it like to any route. The adapter's front layer (`src/http/front/`)
 * already admitted the request and kept every parser off its body, which the driver reads here, after the
 * app's guards. `decorators` are the app's `http.routeDecorators`.
 */
export function createMcpController(path: string, decorators: readonly ClassDecorator[]): Type<unknown> {
  @Controller(path)
  class McpController {
    constructor(@Inject(McpHttpDriver) private readonly driver: McpHttpDriver) {}

    @All()
    serve(@Req() req: FrameworkRequest, @Res() res: FrameworkResponse): Promise<void> {
      return serveRoute(this.driver, req, res);
    }
  }
  decorateRoute(McpController, decorators);
  // After the app's filters, so consulted before them: Nest tries a controller's filters last-declared first.
  UseFilters(McpUnauthorizedFilter)(McpController);
  Reflect.defineMetadata(SWAGGER_EXCLUDE_CONTROLLER, [true], McpController);
  Reflect.defineMetadata(MCP_ENDPOINT_METADATA, true, McpController);
  return McpController;
}
