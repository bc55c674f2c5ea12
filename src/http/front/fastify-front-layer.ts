import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { McpHttpDriver } from '../mcp-http-driver.js';
import { hideBody, restoreBody } from './hidden-body.js';
import { MCP_PREPARED_BODY } from './prepared-body.js';

interface FastifyLikeRequest {
  raw: IncomingMessage & { [MCP_PREPARED_BODY]?: unknown };
}
interface FastifyLikeReply {
  raw: ServerResponse;
  hijack(): void;
}
type PreParsingHook = (
  request: FastifyLikeRequest,
  reply: FastifyLikeReply,
  payload: Readable,
  done: (error: Error | null, payload: Readable) => void,
) => void;
type RequestHook = (request: FastifyLikeRequest, reply: FastifyLikeReply, done: () => void) => void;
interface FastifyLikeRoute {
  url: string;
  onRequest?: RequestHook | RequestHook[];
  preParsing?: PreParsingHook | PreParsingHook[];
  preValidation?: RequestHook | RequestHook[];
}
interface FastifyLikeInstance {
  addHook(name: 'onRoute', hook: (route: FastifyLikeRoute) => void): void;
  initialConfig?: { bodyLimit?: number };
}

// What Fastify sets when the app gives no `bodyLimit`: not the app's choice, so the module's own limit stands.
const FASTIFY_DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * On Fastify, the app's content-type parsers run before any route handler, with their own size limit, media
 * types and error pages. The MCP route owns its body instead: when the route is registered, it gets a
 * `preParsing` hook of its own that admits the request under the driver's rules (Host/Origin, media type, a
 * bearer token, size, encoding), so every refusal is the driver's JSON-RPC error, and leaves the body it read on
 * the raw request; when the body is read in the route instead (`readsBodyInRoute`: after the guards that
 * `auth.fromRequest` reads), the hook leaves it unread.
 *
 * Fastify has no per-route way to skip parsing, but it parses nothing for a request that declares no body (no
 * Content-Type, no Transfer-Encoding, Content-Length absent or 0). The hook makes the request declare that
 * (`hidden-body.ts`), and a `preValidation` hook, the next step, which runs before any route-level hook and
 * before Nest sees the request, puts the headers back as they arrived. For a body already read, that keeps
 * Fastify from handing a parser a substitute body, which cost a stream, a parse and several ticks per request.
 *
 * The app's own `bodyLimit` (other than Fastify's default) caps the driver's limit when it is smaller: the app
 * meant it for every route. With the `cors` option, the route also gets an `onRequest` hook that applies the policy (and answers
 * preflights). Must run before Nest registers its routes. Returns false when the instance is not one it can hook.
 * Fastify documents neither "no declared body, no parse" nor the hook order as a guarantee for this use:
 * test/unit/adapter-assumptions.spec.ts pins both on the Fastify that Nest's adapter brings.
 */
export function installFastifyBodyHook(instance: unknown, fullPath: string, driver: McpHttpDriver): boolean {
  const fastify = instance as FastifyLikeInstance;
  if (typeof fastify?.addHook !== 'function') return false;
  const appLimit = fastify.initialConfig?.bodyLimit;
  if (typeof appLimit === 'number' && appLimit !== FASTIFY_DEFAULT_BODY_LIMIT) driver.capBodyBytes(appLimit);
  const admit: PreParsingHook = (request, reply, payload, done) => {
    const req = request.raw;
    driver.admitThen(req, reply.raw, request, (admitted) => {
      if (!admitted) {
        reply.hijack();
        return done(null, payload);
      }
      req[MCP_PREPARED_BODY] = admitted;
      if (req.method === 'POST') hideBody(req);
      done(null, payload);
    });
  };
  const restoreHeaders: RequestHook = (request, _reply, done) => {
    restoreBody(request.raw);
    done();
  };
  // CORS first, as on Express: a preflight carries no credentials, so it is answered before Nest's guards (which
  // run in the route handler), and every other request is marked before a refusal of its body can be written.
  const cors: RequestHook = (request, reply, done) => {
    if (driver.applyCors(request.raw, reply.raw)) return reply.hijack();
    done();
  };
  fastify.addHook('onRoute', (route) => {
    if (route.url !== fullPath) return;
    if (driver.corsEnabled) route.onRequest = [...[route.onRequest ?? []].flat(), cors];
    route.preParsing = [...[route.preParsing ?? []].flat(), admit];
    route.preValidation = [restoreHeaders, ...[route.preValidation ?? []].flat()];
  });
  return true;
}
