import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { McpHttpDriver } from '../http/mcp-http.driver.js';
import { MCP_PREPARED_BODY } from './mcp.constants.js';

interface FastifyLikeRequest {
  raw: IncomingMessage & { [MCP_PREPARED_BODY]?: unknown };
}
interface FastifyLikeReply {
  raw: ServerResponse;
  hijack(): void;
}
type PreParsingHook = (request: FastifyLikeRequest, reply: FastifyLikeReply, payload: Readable, done: (error: Error | null, payload: Readable) => void) => void;
type OnRequestHook = (request: FastifyLikeRequest, reply: FastifyLikeReply, done: () => void) => void;
interface FastifyLikeRoute {
  url: string;
  bodyLimit?: number;
  onRequest?: OnRequestHook | OnRequestHook[];
  preParsing?: PreParsingHook | PreParsingHook[];
}
interface FastifyLikeInstance {
  addHook(name: 'onRoute', hook: (route: FastifyLikeRoute) => void): void;
}

// What the app's JSON parser is handed instead of the MCP body: the smallest valid JSON document.
const PARSED_ELSEWHERE = Buffer.from('null');

/**
 * On Fastify, the app's content-type parsers run before any route handler, with their own size limit, media
 * types and error pages. The MCP route owns its body instead: when the route is registered, it gets a
 * `preParsing` hook of its own that reads the body under the driver's rules (Host/Origin, media type, size,
 * encoding) and leaves it on the raw request, so every refusal is the driver's JSON-RPC error. Fastify has no
 * per-route way to skip parsing, so the parser is then handed the literal `null`, which every JSON parser
 * accepts at no cost, and the route's body limit becomes the driver's (the driver has enforced it already).
 * The route also gets an `onRequest` hook that applies the CORS policy (and answers preflights).
 * Must run before Nest registers its routes. Returns false when the instance is not one it can hook.
 */
export function installFastifyBodyHook(instance: unknown, fullPath: string, driver: McpHttpDriver): boolean {
  const fastify = instance as FastifyLikeInstance;
  if (typeof fastify?.addHook !== 'function') return false;
  const readBody: PreParsingHook = (request, reply, payload, done) => {
    if (request.raw.method !== 'POST') return done(null, payload);
    void driver.readPrepared(request.raw, reply.raw).then((prepared) => {
      if (!prepared) {
        reply.hijack();
        return done(null, payload);
      }
      request.raw[MCP_PREPARED_BODY] = prepared;
      const parsedElsewhere = new Readable({ read() {} });
      parsedElsewhere.push(PARSED_ELSEWHERE);
      parsedElsewhere.push(null);
      // Fastify checks that the parser saw Content-Length bytes; this says they all arrived (the driver read them).
      done(null, Object.assign(parsedElsewhere, { receivedEncodedLength: Number(request.raw.headers['content-length']) }));
    });
  };
  // CORS first, as on Express: a preflight carries no credentials, so it is answered before Nest's guards (which
  // run in the route handler), and every other request is marked before a refusal of its body can be written.
  const cors: OnRequestHook = (request, reply, done) => {
    if (driver.applyCors(request.raw, reply.raw)) return reply.hijack();
    done();
  };
  fastify.addHook('onRoute', (route) => {
    if (route.url !== fullPath) return;
    route.onRequest = [...[route.onRequest ?? []].flat(), cors];
    route.bodyLimit = driver.maxBodyBytes;
    route.preParsing = [...[route.preParsing ?? []].flat(), readBody];
  });
  return true;
}
