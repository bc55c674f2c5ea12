import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpDriver } from '../mcp-http-driver.js';
import { installExpressBodyLayer } from './express-front-layer.js';
import { installFastifyBodyHook } from './fastify-front-layer.js';
import { restoreBody } from './hidden-body.js';
import { MCP_PREPARED_BODY, type FrontedRequest } from './prepared-body.js';

/**
 * The MCP route's front layer on one framework: what runs before the framework's body parsers and the app's
 * guards, so the route owns its body (admitted under the driver's rules, or kept from every parser until the
 * route reads it). The host (the Nest module) installs it when its framework allows, and adds `routeMiddleware`,
 * when there is one, to the MCP route.
 */
export interface McpFrontLayer {
  /** Installs the layer for the endpoint at `path` on the framework's app or instance; false when it cannot. */
  install(instance: unknown, path: string): boolean;
  /** Runs on the MCP route just before the app's guards: Express, when the body is read in the route. */
  readonly routeMiddleware?: (req: IncomingMessage, res: unknown, next: () => void) => void;
}

/** The front layer of `framework` (an HTTP adapter's type: `express`, `fastify`) for `driver`; undefined for others. */
export function frontLayerFor(framework: string | undefined, driver: McpHttpDriver): McpFrontLayer | undefined {
  if (framework === 'express')
    return {
      install: (app, path) => installExpressBodyLayer(app, path, driver),
      // The layer hid the body from every parser; this puts its headers back before the guards see them.
      routeMiddleware: driver.readsBodyInRoute ? restoreBodyHeaders : undefined,
    };
  if (framework === 'fastify') return { install: (instance, path) => installFastifyBodyHook(instance, path, driver) };
  return undefined;
}

function restoreBodyHeaders(req: IncomingMessage, _res: unknown, next: () => void): void {
  restoreBody(req);
  next();
}

/** Express hands over Node's objects themselves; Fastify wraps them and exposes them as `raw`. */
export type FrameworkRequest = FrontedRequest & { raw?: FrontedRequest; body?: unknown };
export type FrameworkResponse = ServerResponse & { raw?: ServerResponse };

/**
 * Serves the MCP route from the framework's request and response: what the front layer admitted goes to the
 * driver. Without a front layer (an adapter it cannot reach), the driver admits the request itself; a route the
 * framework extended further (Nest's `RouterModule`) reaches here with the body its parser read, which is
 * served after the rules the layer would have applied, rather than waited for.
 */
export function serveRoute(driver: McpHttpDriver, req: FrameworkRequest, res: FrameworkResponse): Promise<void> {
  const nodeReq = req.raw ?? req;
  const nodeRes = res.raw ?? res;
  const prepared = nodeReq[MCP_PREPARED_BODY];
  if (prepared) return driver.handle(nodeReq, nodeRes, prepared, req);
  // The front layers apply CORS; this is for an adapter that has none.
  if (driver.applyCors(nodeReq, nodeRes)) return Promise.resolve();
  if (!nodeReq.readableEnded) return driver.handle(nodeReq, nodeRes, undefined, req);
  const refused = driver.preflight(nodeReq);
  if (refused) {
    driver.reject(nodeRes, refused);
    return Promise.resolve();
  }
  return driver.handle(nodeReq, nodeRes, { parsed: req.body }, req);
}
