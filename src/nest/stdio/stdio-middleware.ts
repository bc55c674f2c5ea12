import { RequestMethod, type HttpServer, type INestApplicationContext, type LoggerService } from '@nestjs/common';
import { ApplicationConfig, ExternalContextCreator } from '@nestjs/core';
import { NoopGraphInspector } from '@nestjs/core/inspector/noop-graph-inspector.js';
import type { NestContainer } from '@nestjs/core/injector/container.js';
import { Injector } from '@nestjs/core/injector/injector.js';
import { MiddlewareContainer } from '@nestjs/core/middleware/container.js';
import { MiddlewareModule } from '@nestjs/core/middleware/middleware-module.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { errorResponse, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/jsonrpc.js';
import type { StdioAnswer } from '../../stdio/mcp-stdio-driver.js';
import { McpCapturedResponse } from '../pipeline/mcp-captured-response.js';
import { createStdioRequest, currentStdioRequest, type StdioRequestShape } from '../pipeline/stdio-request.js';

type Middleware = (req: unknown, res: unknown, next: (error?: unknown) => void) => unknown;
type Around = (request: JsonRpcRequest, dispatch: () => StdioAnswer) => StdioAnswer;

interface RouteInfo {
  path: string;
  method: RequestMethod;
}
interface MiddlewareConfiguration {
  forRoutes: Array<RouteInfo | string>;
}

/**
 * What a stdio request runs inside: the app's middleware bound to the MCP endpoint (`MiddlewareConsumer`
 * configurations whose routes cover a POST to `endpoint`, class and functional, in the order Nest mounts them,
 * request-scoped ones resolved per request, `exclude()` honoured), around the call, on the request's stand-in.
 * That is where MikroORM's `RequestContext`, nestjs-cls and other `AsyncLocalStorage` contexts begin, so a
 * call's handler runs in them as over HTTP. A middleware that answers instead of calling `next` ends the
 * request with its answer as a -32000 error. The chain is built once, at start-up, by Nest's own middleware
 * module against an adapter that records what it would mount instead of mounting it.
 */
export async function stdioMiddleware(
  app: INestApplicationContext,
  shape: StdioRequestShape & { endpoint: string; principal: unknown },
  logger: LoggerService,
): Promise<Around> {
  const chain = await middlewareFor(app, shape.endpoint);
  return (request, dispatch) => {
    const req = createStdioRequest(shape.principal, { headers: shape.headers, url: shape.endpoint });
    return currentStdioRequest.run(req, () => runChain(chain, req, request, dispatch, logger));
  };
}

async function middlewareFor(app: INestApplicationContext, endpoint: string): Promise<Middleware[]> {
  const container = containerOf(app);
  const adapter = container.getHttpAdapterRef() as HttpServer;
  const config = app.get(ApplicationConfig);
  const middlewareContainer = new MiddlewareContainer(container);
  const module = new MiddlewareModule();
  // Runs every module's configure(consumer) into a container of its own, whatever the app's HTTP server did.
  await module.register(middlewareContainer, container, config, new Injector(), adapter, NoopGraphInspector, {});
  const recorded: Middleware[] = [];
  const recorder = {
    getRequestMethod: (req: { method?: string }) => req.method,
    // One handler per (configuration, middleware), mounted on each of its paths: kept once.
    createMiddlewareFactory: () => (_path: string, handler: Middleware) => {
      if (!recorded.includes(handler)) recorded.push(handler);
    },
  };
  const relative = stripPrefix(endpoint, config.getGlobalPrefix());
  await module.registerMiddleware(coveringOnly(middlewareContainer, relative), recorder as unknown as HttpServer);
  return recorded;
}

/** Nest's container, as its own context creator holds it (test/unit/adapter-assumptions.spec.ts pins that). */
export function containerOf(app: INestApplicationContext): NestContainer {
  return (app.get(ExternalContextCreator) as unknown as { container: NestContainer }).container;
}

/** The configurations (and of each, the routes) that cover a POST to the endpoint. */
function coveringOnly(middleware: MiddlewareContainer, endpoint: string): MiddlewareContainer {
  const covering = new Map<string, Set<MiddlewareConfiguration>>();
  for (const [moduleKey, configurations] of middleware.getConfigurations()) {
    const kept = new Set<MiddlewareConfiguration>();
    for (const configuration of configurations as Set<MiddlewareConfiguration>) {
      const forRoutes = configuration.forRoutes.filter((route) => covers(route, endpoint));
      if (forRoutes.length > 0) kept.add({ ...configuration, forRoutes });
    }
    covering.set(moduleKey, kept);
  }
  return Object.assign(Object.create(middleware) as MiddlewareContainer, { getConfigurations: () => covering });
}

/** Whether a `forRoutes` route (a path as written, before the global prefix) matches a POST to `endpoint`. */
function covers(route: RouteInfo | string, endpoint: string): boolean {
  const { path, method } = typeof route === 'string' ? { path: route, method: RequestMethod.ALL } : route;
  // A path given as a string has no method of its own: RequestMethod.ALL, or a value outside the enum (Nest 12).
  const anyMethod = method === RequestMethod.ALL || RequestMethod[method] === undefined;
  if (!anyMethod && method !== RequestMethod.POST) return false;
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return anyMethod;
  const pattern = trimmed
    .split(/(\{\*\w*\}|\(\.\*\)|\*\w*|:\w+)/)
    .map((part, index) => (index % 2 === 0 ? part.replace(/[.+?^${}()|[\]\\]/g, '\\$&') : wildcard(part)))
    .join('');
  return new RegExp(`^${pattern}$`, 'i').test(endpoint.replace(/^\/+|\/+$/g, ''));
}

function wildcard(token: string): string {
  return token.startsWith(':') ? '[^/]+' : '.*';
}

function stripPrefix(endpoint: string, prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  if (!trimmed) return endpoint;
  const path = endpoint.replace(/^\/+/, '');
  return path.toLowerCase().startsWith(`${trimmed.toLowerCase()}/`) ? path.slice(trimmed.length + 1) : path;
}

/** A response that tells when a middleware answered. */
class StdioMiddlewareResponse extends McpCapturedResponse {
  onSend: (() => void) | undefined;

  override send(body?: unknown): this {
    super.send(body);
    this.onSend?.();
    return this;
  }
}

function runChain(
  chain: readonly Middleware[],
  req: Record<string, unknown>,
  request: JsonRpcRequest,
  dispatch: () => StdioAnswer,
  logger: LoggerService,
): StdioAnswer {
  // Without middleware a call answered synchronously is handed back as it is, with no promise around it.
  if (chain.length === 0) return dispatch();
  return new Promise((resolve, reject) => {
    const res = new StdioMiddlewareResponse();
    let settled = false;
    // The call is dispatched from inside the last `next`, so it runs in every context the middleware opened.
    const settle = (answer: () => Promise<JsonRpcResponse> | JsonRpcResponse) => {
      if (settled) return;
      settled = true;
      try {
        Promise.resolve(answer()).then(resolve, reject);
      } catch (error) {
        reject(error);
      }
    };
    res.onSend = () => settle(() => refused(request, res));
    const failed = (error: unknown) =>
      settle(() => {
        logger.error(`A middleware failed a stdio request: ${String(error)}`, (error as Error)?.stack);
        return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
      });
    const step =
      (index: number) =>
      (error?: unknown): void => {
        if (settled) return;
        if (error !== undefined && error !== 'route' && error !== 'router') return failed(error);
        if (index === chain.length) return settle(dispatch);
        try {
          const returned = chain[index](req, res, step(index + 1));
          if (returned instanceof Promise) returned.catch(failed);
        } catch (thrown) {
          failed(thrown);
        }
      };
    step(0)();
  });
}

function refused(request: JsonRpcRequest, res: McpCapturedResponse): JsonRpcResponse {
  const message = res.message() ?? `HTTP ${res.statusCode}`;
  return errorResponse(request.id, ErrorCode.ServerError, `The app's middleware refused the request: ${message}`, {
    status: res.statusCode,
  });
}
