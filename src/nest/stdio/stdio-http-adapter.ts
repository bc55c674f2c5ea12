import type { HttpServer } from '@nestjs/common';

interface RecordedResponse {
  status(code: number): unknown;
  send(body?: unknown): unknown;
  end(body?: unknown): unknown;
  setHeader(name: string, value: string): unknown;
  getHeader(name: string): unknown;
  readonly headersSent: boolean;
}

interface StandInRequest {
  method?: string;
  url?: string;
  originalUrl?: string;
}

/**
 * What `HttpAdapterHost.httpAdapter` holds in a stdio app, which has no HTTP server: the few adapter methods
 * exception filters call on a response (`reply`, `status`, `end`, headers) and on a request (its URL and
 * method), working on the call's recorded response and stand-in request. A filter written for HTTP, such as
 * the Nest docs' catch-all, then answers a stdio call as it answers an HTTP one. `getType()` is `'stdio'`.
 */
const NO_SERVER = Object.freeze({});

export function stdioHttpAdapter(): HttpServer {
  const adapter = {
    getType: () => 'stdio',
    // Modules that probe the adapter's framework in configure() (nestjs-cls picks its mount path) find no server.
    getInstance: () => NO_SERVER,
    getRequestUrl: (request: StandInRequest) => request?.originalUrl ?? request?.url ?? '',
    getRequestMethod: (request: StandInRequest) => request?.method ?? 'POST',
    getRequestHostname: () => 'localhost',
    reply(response: RecordedResponse, body: unknown, statusCode?: number) {
      if (statusCode !== undefined) response.status(statusCode);
      return response.send(body);
    },
    status: (response: RecordedResponse, statusCode: number) => response.status(statusCode),
    end: (response: RecordedResponse, message?: string) => response.end(message),
    isHeadersSent: (response: RecordedResponse) => response.headersSent,
    setHeader: (response: RecordedResponse, name: string, value: string) => response.setHeader(name, value),
    getHeader: (response: RecordedResponse, name: string) => response.getHeader(name),
  };
  return adapter as unknown as HttpServer;
}
