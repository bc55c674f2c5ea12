import type { Type } from '@nestjs/common';
import type { ToolOptions } from './tool.decorator.js';

/** Where a route reads an argument from. */
export type RouteArgumentSource = 'path' | 'query' | 'body';

/**
 * Options of `@RouteTool`: the tool options of `@Tool` less the input schema, which the route's own parameters
 * declare. `name` defaults to `@ApiOperation`'s `operationId`, else snake_case of the controller and handler
 * (`OrdersController.findOne` is `orders_find_one`); `description` to `@ApiOperation`'s summary and description,
 * else the method and path; `outputSchema` to the type of the route's `@ApiOkResponse` (or other 2xx response).
 * `hideWhenDenied` is not offered: a route's guards judge an HTTP request, which a `tools/list` does not make;
 * `@RequireScopes` hides the tool from callers without its scopes.
 */
export interface RouteToolOptions extends Omit<ToolOptions, 'inputSchema' | 'hideWhenDenied'> {
  /**
   * New argument names for route keys, by where the route reads them: a key that two places declare (a path
   * `id` and a body `id`) fails start-up until one is renamed, e.g. `{ body: { id: 'item_id' } }`.
   */
  rename?: Partial<Record<RouteArgumentSource, Record<string, string>>>;
}

/** The module's `routes` options: the REST routes served as tools, and what their in-process requests carry. */
export interface McpRoutesOptions {
  /** Controllers every route of which is a tool (`@RouteTool` on one of their routes still sets its options). */
  controllers?: Type<unknown>[];
  /**
   * Request headers copied from the MCP request onto each route's request, besides `Authorization` and `Cookie`
   * (which always are): e.g. `['x-tenant-id']`. No other header of the MCP request reaches the route.
   */
  forwardHeaders?: string[];
  /** Largest route answer read, in bytes; a longer one is cut and the call is an error. Default 4 MiB. */
  maxResponseBytes?: number;
}
