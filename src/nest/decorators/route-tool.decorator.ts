import { SetMetadata } from '@nestjs/common';
import { MCP_ROUTE_TOOL_METADATA } from '../mcp-metadata.constants.js';
import type { RouteToolOptions } from './route-tool-options.interface.js';

/**
 * Serves a controller route (beside `@Get`, `@Post`, ...) as an MCP tool of the servers whose `include` covers
 * its module. Its arguments are the route's path parameters, query and body keys side by side; a call runs the
 * real route in process, through its middleware, guards, pipes, interceptors and filters. See
 * docs/route-tools.md.
 */
export function RouteTool(options: RouteToolOptions = {}): MethodDecorator {
  return SetMetadata(MCP_ROUTE_TOOL_METADATA, options);
}
