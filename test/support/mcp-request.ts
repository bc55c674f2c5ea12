import type { INestApplication } from '@nestjs/common';
import request from 'supertest';

export const PROTOCOL_VERSION = '2026-07-28';

export interface EnvelopeOptions {
  id?: string | number;
  clientCapabilities?: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

/** A 2026-07-28 request body: method, params and the per-request `_meta` envelope. */
export function envelope(method: string, params: Record<string, unknown> = {}, options: EnvelopeOptions = {}): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id: options.id ?? 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'test-client', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': options.clientCapabilities ?? {},
        ...options.meta,
      },
    },
  };
}

/** The standard headers a conforming client sends for a body (MCP-Protocol-Version, Mcp-Method, Mcp-Name). */
export function headersFor(body: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
  };
  if (typeof body.method === 'string') headers['mcp-method'] = body.method;
  const params = (body.params ?? {}) as Record<string, unknown>;
  if ((body.method === 'tools/call' || body.method === 'prompts/get') && typeof params.name === 'string') headers['mcp-name'] = params.name;
  if (body.method === 'resources/read' && typeof params.uri === 'string') headers['mcp-name'] = params.uri;
  if (typeof body.method === 'string' && body.method.startsWith('tasks/') && typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
  return headers;
}

/** POSTs a body to the MCP endpoint with conforming headers; `headers` overrides or removes (undefined) any. */
export function post(
  app: INestApplication,
  body: unknown,
  headers: Record<string, string | undefined> = {},
  path = '/mcp',
): request.Test {
  const merged: Record<string, string | undefined> = {
    ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? headersFor(body as Record<string, unknown>) : { 'content-type': 'application/json' }),
    ...headers,
  };
  let req = request(app.getHttpServer()).post(path);
  for (const [name, value] of Object.entries(merged)) if (value !== undefined) req = req.set(name, value);
  return req.send(typeof body === 'string' ? body : JSON.stringify(body));
}

/** POSTs a conforming `tools/call`; `extra` adds params such as `inputResponses` or `requestState`. */
export function callTool(
  app: INestApplication,
  name: string,
  args?: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  options: EnvelopeOptions = {},
): request.Test {
  const params: Record<string, unknown> = { name, ...extra };
  if (args !== undefined) params.arguments = args;
  return post(app, envelope('tools/call', params, options));
}

/** Parses a `text/event-stream` body into its JSON messages (the testing kit's parser). */
export { sseMessages } from '../../src/testing/index.js';
