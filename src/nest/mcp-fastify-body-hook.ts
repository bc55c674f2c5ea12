import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { McpHttpDriver } from '../http/mcp-http-driver.js';
import { MCP_PREPARED_BODY } from './mcp.constants.js';

interface FastifyLikeRequest {
  raw: IncomingMessage & { [MCP_PREPARED_BODY]?: unknown; [HIDDEN_BODY_HEADERS]?: HiddenHeaders };
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

/** The body-describing headers as they arrived, while Fastify is shown a request without a body. */
type HiddenHeaders = Pick<IncomingMessage['headers'], 'content-type' | 'content-length' | 'transfer-encoding'>;
const HIDDEN_BODY_HEADERS = Symbol('MCP_HIDDEN_BODY_HEADERS');

/**
 * On Fastify, the app's content-type parsers run before any route handler, with their own size limit, media
 * types and error pages. The MCP route owns its body instead: when the route is registered, it gets a
 * `preParsing` hook of its own that reads the body under the driver's rules (Host/Origin, media type, size,
 * encoding) and leaves it on the raw request, so every refusal is the driver's JSON-RPC error.
 *
 * Fastify has no per-route way to skip parsing, but it parses nothing for a request that declares no body (no
 * Content-Type, no Transfer-Encoding, Content-Length absent or 0). Once the body is read, the hook makes the
 * request declare that, and a `preValidation` hook, the next step, which runs before any route-level hook and
 * before Nest sees the request, puts the headers back as they arrived. That keeps Fastify from handing a parser
 * a substitute body, which cost a stream, a parse and several ticks per request (measured: ~10% of a small call).
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
  const readBody: PreParsingHook = (request, reply, payload, done) => {
    if (request.raw.method !== 'POST') return done(null, payload);
    void driver.readPrepared(request.raw, reply.raw, request).then((prepared) => {
      if (!prepared) {
        reply.hijack();
        return done(null, payload);
      }
      request.raw[MCP_PREPARED_BODY] = prepared;
      hideBody(request.raw);
      done(null, payload);
    });
  };
  const restoreHeaders: RequestHook = (request, _reply, done) => {
    const hidden = request.raw[HIDDEN_BODY_HEADERS];
    if (hidden) Object.assign(request.raw.headers, hidden);
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
    route.preParsing = [...[route.preParsing ?? []].flat(), readBody];
    route.preValidation = [restoreHeaders, ...[route.preValidation ?? []].flat()];
  });
  return true;
}

/** Only headers that are present change (and are restored), so the header object keeps its keys. */
function hideBody(req: IncomingMessage & { [HIDDEN_BODY_HEADERS]?: HiddenHeaders }): void {
  const headers = req.headers;
  const hidden: HiddenHeaders = { 'content-type': headers['content-type'] };
  headers['content-type'] = undefined;
  if (headers['content-length'] !== undefined) {
    hidden['content-length'] = headers['content-length'];
    headers['content-length'] = '0';
  }
  if (headers['transfer-encoding'] !== undefined) {
    hidden['transfer-encoding'] = headers['transfer-encoding'];
    headers['transfer-encoding'] = undefined;
  }
  req[HIDDEN_BODY_HEADERS] = hidden;
}
