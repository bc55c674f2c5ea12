import { ExpressAdapter } from '@nestjs/platform-express';
import {
  createServer as createHttpServer,
  IncomingMessage,
  ServerResponse,
  type Server,
  type ServerOptions,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

type NestHttpOptions = Parameters<ExpressAdapter['initHttpServer']>[0];
interface ExpressPrototypes {
  request: object;
  response: object;
}

/**
 * Nest's `ExpressAdapter`, with an HTTP(S) server that creates every request and response with Express's own
 * prototypes (`app.request`, `app.response`) already in place.
 *
 * Express 5 calls `Object.setPrototypeOf` on the request and the response of every request. Changing a live
 * object's prototype is slow in V8, and it also keeps each request reachable through young-generation
 * collections, so every request is promoted to the old generation (measured: a plain server doing only those
 * two calls serves a third of the requests). With the prototypes already set, Express's calls change nothing.
 * Everything else is Nest's adapter; a mounted Express sub-app still swaps in its own prototypes as before.
 *
 * It concerns the whole application, not only MCP: `NestFactory.create(AppModule, new PrototypeExpressAdapter())`.
 */
export class PrototypeExpressAdapter extends ExpressAdapter {
  initHttpServer(options: NestHttpOptions): void {
    // Nest's own set-up first (the 503-on-closing middleware, connection tracking), then its server is replaced
    // before anything listens on it, keeping the listeners Nest added to it (the app itself is passed again).
    super.initHttpServer(options);
    const nestServer: Server = this.httpServer;
    const classes = serverClasses(this.getInstance<ExpressPrototypes>());
    const server = options?.httpsOptions
      ? createHttpsServer({ ...options.httpsOptions, ...classes }, this.getInstance())
      : createHttpServer(classes, this.getInstance());
    // Node's own listeners (the HTTP parser's, connection tracking) are module functions the new server has too.
    for (const event of nestServer.eventNames()) {
      if (event === 'request') continue;
      const own = server.listeners(event);
      for (const listener of nestServer.listeners(event)) {
        if (!own.includes(listener)) server.on(event as string, listener as (...args: unknown[]) => void);
      }
    }
    this.httpServer = server;
  }
}

/** Node's constructors are plain functions: applied to `this`, they initialise it as they would a new object. */
function serverClasses(app: ExpressPrototypes): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  function ExpressRequest(this: IncomingMessage, ...args: unknown[]): void {
    Reflect.apply(IncomingMessage, this, args);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(this: ServerResponse, ...args: unknown[]): void {
    Reflect.apply(ServerResponse, this, args);
  }
  ExpressResponse.prototype = app.response;
  return {
    IncomingMessage: ExpressRequest as unknown as typeof IncomingMessage,
    ServerResponse: ExpressResponse as unknown as typeof ServerResponse,
  };
}
