import { All, Controller, Inject, Req, Res, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpDriver, type PreparedBody } from '../http/mcp-http.driver.js';
import { MCP_PREPARED_BODY } from './mcp.constants.js';

type FrameworkRequest = IncomingMessage & { raw?: IncomingMessage; body?: unknown; [MCP_PREPARED_BODY]?: PreparedBody };
type FrameworkResponse = ServerResponse & { raw?: ServerResponse };

/**
 * Builds the controller of one MCP server at `path`. It is a thin driver call: all the transport rules live in
 * `McpHttpDriver`. Being a real controller keeps the endpoint inside Nest's pipeline, so global middleware,
 * guards and the global prefix apply to it like to any route.
 */
export function createMcpController(path: string): Type<unknown> {
  @Controller(path)
  class McpController {
    constructor(@Inject(McpHttpDriver) private readonly driver: McpHttpDriver) {}

    @All()
    async serve(@Req() req: FrameworkRequest, @Res() res: FrameworkResponse): Promise<void> {
      const prepared = req[MCP_PREPARED_BODY];
      if (prepared) return this.driver.handle(req, res, prepared, req);
      if (this.driver.applyCors(req.raw ?? req, res.raw ?? res)) return;
      if (req.raw && res.raw) {
        // Fastify: the framework owns body parsing and hands over the parsed value.
        const rejection = this.driver.preflight(req.raw);
        if (rejection) return this.driver.reject(res.raw, rejection);
        return this.driver.handle(req.raw, res.raw, { parsed: req.body }, req);
      }
      return this.driver.handle(req, res, undefined, req);
    }
  }
  return McpController;
}
