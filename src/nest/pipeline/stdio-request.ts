import { AsyncLocalStorage } from 'node:async_hooks';
import type { McpContext } from '../../server/mcp-context.js';

/** What a stdio request looks like to the app: the headers the stdio server sends, the endpoint's path. */
export interface StdioRequestShape {
  headers?: Readonly<Record<string, string>>;
  /** The MCP endpoint's path, where the app's middleware is bound. Default: the URL of no route. */
  url?: string;
}

/**
 * The request enhancers see for a call without an HTTP request (stdio, `MCPServer.handleRequest`): a local
 * caller, so guards and filters written for HTTP read what they expect instead of failing on undefined. The
 * headers `bootstrapStdio` was told to send (none by default), the loopback address (a throttler tracks the
 * local process as one client), the endpoint's path over stdio (the URL of no route in process), and the
 * transport's principal as `user`. `McpExecutionContext.getTransport()` tells it apart.
 */
export function stdioRequest(context: McpContext): Record<string, unknown> {
  return currentStdioRequest.getStore() ?? createStdioRequest(context.principal);
}

/** A stand-in request; over stdio one per request, made before the app's middleware runs for it. */
export function createStdioRequest(principal: unknown, shape: StdioRequestShape = {}): Record<string, unknown> {
  const url = shape.url ?? '';
  return {
    [STDIO_REQUEST]: true,
    method: 'POST',
    url,
    originalUrl: url,
    path: url,
    headers: { ...shape.headers },
    query: {},
    params: {},
    ip: LOOPBACK,
    ips: [],
    socket: { remoteAddress: LOOPBACK },
    user: principal,
  };
}

/**
 * The stand-in of the stdio request being served: the one the app's middleware saw, so what it attached (a
 * request-scoped context id, a CLS id, `req.user`) is what the call's enhancers, request-scoped providers and
 * route tools see.
 */
export const currentStdioRequest = new AsyncLocalStorage<Record<string, unknown>>();

/** Marks the stand-in, so it is told from a real request by identity, not by shape. */
export const STDIO_REQUEST = Symbol('MCP_STDIO_REQUEST');

const LOOPBACK = '127.0.0.1';
