import { encodeHeaderValue } from '../protocol/header-codec.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import { routedName } from '../protocol/routed-name.js';
import type { ClientCapabilities, Implementation } from '../protocol/mcp-types.js';
import {
  LATEST_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
} from '../protocol/versions.js';

export interface McpMessageOptions {
  /** Default 1. */
  id?: string | number;
  /** Default: none. */
  clientCapabilities?: ClientCapabilities | Record<string, unknown>;
  /** Default `{ name: 'nestjs-mcp-testing', version: '1.0.0' }`. */
  clientInfo?: Implementation;
  /** Extra `params._meta` entries (a progress token, `traceparent`, a log level); they override the envelope's. */
  meta?: Record<string, unknown>;
}

/**
 * A 2026-07-28 request as a client sends it: the method, its params and the per-request `_meta` envelope
 * (protocol version, client info and capabilities). For `MCPServer.handleRequest` in unit tests, or a body to
 * post yourself.
 */
export function mcpMessage(method: string, params: Record<string, unknown> = {}, options: McpMessageOptions = {}) {
  return {
    jsonrpc: '2.0' as const,
    id: options.id ?? 1,
    method,
    params: {
      ...params,
      _meta: {
        [META_PROTOCOL_VERSION]: LATEST_PROTOCOL_VERSION,
        [META_CLIENT_INFO]: options.clientInfo ?? { name: 'nestjs-mcp-testing', version: '1.0.0' },
        [META_CLIENT_CAPABILITIES]: options.clientCapabilities ?? {},
        ...options.meta,
      },
    },
  };
}

/**
 * The headers a conforming client sends with `body`: media types, MCP-Protocol-Version, Mcp-Method, Mcp-Name (the
 * tool or prompt name, the resource URI, or the task id).
 */
export function mcpHeaders(body: { method?: unknown; params?: unknown }): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
  };
  if (typeof body.method !== 'string') return headers;
  headers['mcp-method'] = body.method;
  const name = routedName({ method: body.method, params: isPlainObject(body.params) ? body.params : undefined });
  if (name !== undefined) headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}
