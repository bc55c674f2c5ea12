import { All, Controller, Inject, Req, Res, UseFilters, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpDriver } from '../../http/mcp-http-driver.js';
import type { PreparedBody } from '../../http/mcp-http-options.js';
import { MCP_PREPARED_BODY } from '../mcp.constants.js';
import { McpUnauthorizedFilter } from './mcp-unauthorized.filter.js';

// `@ApiExcludeController()` of @nestjs/swagger stores `[true]` under this key; setting it ourselves keeps the
// endpoint out of the app's OpenAPI document without depending on swagger. It is not a REST resource: one POST
// whose body is JSON-RPC, which an OpenAPI operation would only misdescribe.
const SWAGGER_EXCLUDE_CONTROLLER = 'swagger/apiExcludeController';

type NodeRequest = IncomingMessage & { [MCP_PREPARED_BODY]?: PreparedBody };
/** Express hands over Node's objects themselves; Fastify wraps them and exposes them as `raw`. */
type FrameworkRequest = NodeRequest & { raw?: NodeRequest; body?: unknown };
type FrameworkResponse = ServerResponse & { raw?: ServerResponse };

/**
 * Builds the controller of one MCP server at `path`. It is a thin driver call: all the transport rules live in
 * `McpHttpDriver`. Being a real controller keeps the endpoint inside Nest's pipeline, so global middleware,
 * guards and the global prefix apply to it like to any route. The adapter's front layer (`mcp-body-layer.ts`,
 * `mcp-fastify-body-hook.ts`) already admitted the request and kept every parser off its body, which the driver
 * reads here, after the app's guards.
 */
export function createMcpController(path: string): Type<unknown> {
  @Controller(path)
  @UseFilters(McpUnauthorizedFilter)
  class McpController {
    constructor(@Inject(McpHttpDriver) private readonly driver: McpHttpDriver) {}

    @All()
    serve(@Req() req: FrameworkRequest, @Res() res: FrameworkResponse): Promise<void> {
      const nodeReq = req.raw ?? req;
      const nodeRes = res.raw ?? res;
      const prepared = nodeReq[MCP_PREPARED_BODY];
      // The Express layer and the Fastify hooks apply CORS; this is for an adapter that has neither.
      if (!prepared && this.driver.applyCors(nodeReq, nodeRes)) return Promise.resolve();
      if (!prepared && nodeReq.readableEnded) return this.fromFrameworkBody(nodeReq, nodeRes, req);
      return this.driver.handle(nodeReq, nodeRes, prepared, req);
    }

    /**
     * The body layer matches the paths it was given (prefix, URI version); a route Nest builds further (RouterModule)
     * reaches here with the body already read by Nest's parser, under its limits. Serve that parsed body, after
     * the rules the layer would have applied, rather than wait for a body that will never come.
     */
    private fromFrameworkBody(nodeReq: NodeRequest, nodeRes: ServerResponse, req: FrameworkRequest): Promise<void> {
      const refused = this.driver.preflight(nodeReq);
      if (refused) {
        this.driver.reject(nodeRes, refused);
        return Promise.resolve();
      }
      return this.driver.handle(nodeReq, nodeRes, { parsed: req.body }, req);
    }
  }
  Reflect.defineMetadata(SWAGGER_EXCLUDE_CONTROLLER, [true], McpController);
  return McpController;
}
