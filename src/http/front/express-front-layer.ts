import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpDriver } from '../mcp-http-driver.js';
import { hideBody } from './hidden-body.js';
import { MCP_PREPARED_BODY } from './prepared-body.js';

interface ExpressLikeApp {
  use(handler: (req: IncomingMessage, res: ServerResponse, next: () => void) => void): void;
  router?: { stack?: unknown[] };
}

/**
 * On Express, Nest's global JSON parser runs before any route, with its own size limit and its own error
 * pages. The MCP route owns its body instead: this layer, placed first in the app's router, admits requests to
 * the MCP path under the driver's rules (Host/Origin, verb, media type, a bearer token, size, encoding) and
 * leaves the body it read on the request; the generic parser then finds the stream consumed and skips it. When
 * the body is read in the route instead (`readsBodyInRoute`: after the guards `auth.fromRequest` reads), the
 * layer makes a POST declare no body (`hidden-body.ts`), so neither Nest's parsers nor the app's own read it,
 * and the module's route middleware puts its headers back before the guards run. Returns false when the app is
 * not an Express app it can reach, in which case the controller admits the request itself.
 */
export function installExpressBodyLayer(app: unknown, fullPath: string, driver: McpHttpDriver): boolean {
  const express = app as ExpressLikeApp;
  if (typeof express?.use !== 'function' || !Array.isArray(express.router?.stack)) return false;
  // Compared the way Express routes by default (case-insensitive, trailing slash optional): a path that reaches
  // the MCP controller but not this layer would have its body eaten by Nest's parser and the driver wait forever.
  const endpoint = routeKey(fullPath);
  // Mounted on no path, so it matches its requests itself: a layer mounted on the endpoint's path would have
  // Express match a pattern for every request, and strip the path from the URL and put it back for the MCP one.
  express.use((req, res, next) => {
    const url = req.url ?? '';
    // Every verb, not only POST: Nest's generic parser would otherwise answer a GET carrying a malformed JSON
    // body with its own error page. The preflight refuses non-POSTs (405) without reading the body. A client
    // sends the path as it was configured: that one is recognised without being normalised.
    if (url !== fullPath && routeKey(pathOf(url)) !== endpoint) return next();
    // CORS first: a preflight is answered here, before Nest middleware and guards that a preflight cannot satisfy.
    if (driver.applyCors(req, res)) return;
    // Without the cors option, a preflight goes on to the app's own CORS middleware (`app.enableCors`).
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) return next();
    driver.admitThen(req, res, req, (admitted) => {
      if (!admitted) return;
      (req as IncomingMessage & { [MCP_PREPARED_BODY]?: unknown })[MCP_PREPARED_BODY] = admitted;
      if (req.method === 'POST' && driver.readsBodyInRoute) hideBody(req);
      next();
    });
  });
  // No supported hook runs before Nest's app-wide parser (installed before any module's middleware), so the
  // layer is moved to the front of Express's router stack; test/unit/adapter-assumptions.spec.ts pins that
  // stack's shape and that the parser then skips the body this layer read, and fails first if an Express,
  // body-parser or Nest release changes either.
  const stack = express.router!.stack!;
  stack.unshift(stack.pop());
  return true;
}

/**
 * The path of a request target as Express routes it: a target in absolute form (`http://host/mcp`, what a client
 * sends through a forward proxy) is routed by its path, so it must reach this layer by its path too.
 */
function pathOf(url: string): string {
  const path = url.split('?')[0];
  if (path.startsWith('/')) return path;
  const authority = /^[a-z][a-z\d+.-]*:\/\/[^/]*/i.exec(path);
  return authority ? path.slice(authority[0].length) || '/' : path;
}

function routeKey(path: string): string {
  return path.replace(/\/+$/, '').toLowerCase();
}
