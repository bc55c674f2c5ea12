import type { McpContext } from '../server/mcp-context.js';

/**
 * The request enhancers see for a call without an HTTP request (stdio, `MCPServer.handleRequest`): a local
 * caller, so guards and filters written for HTTP read what they expect instead of failing on undefined. No
 * headers, the loopback address (a throttler tracks the local process as one client), the URL of no route,
 * and the transport's principal as `user`. `McpExecutionContext.getTransport()` tells it apart.
 */
export function stdioRequest(context: McpContext): Record<string, unknown> {
  return {
    [STDIO_REQUEST]: true,
    method: 'POST',
    url: '',
    originalUrl: '',
    path: '',
    headers: {},
    query: {},
    params: {},
    ip: LOOPBACK,
    ips: [],
    socket: { remoteAddress: LOOPBACK },
    user: context.principal,
  };
}

/** Marks the stand-in, so it is told from a real request by identity, not by shape. */
export const STDIO_REQUEST = Symbol('MCP_STDIO_REQUEST');

const LOOPBACK = '127.0.0.1';
