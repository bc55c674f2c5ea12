import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';

export const PROTOCOL_VERSION = '2026-07-28';

export interface EnvelopeOptions {
  id?: string | number;
  clientCapabilities?: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

/** A 2026-07-28 request body (the testing kit's `mcpMessage`, as client "test-client"). */
export function envelope(
  method: string,
  params: Record<string, unknown> = {},
  options: EnvelopeOptions = {},
): Record<string, unknown> {
  return mcpMessage(method, params, { ...options, clientInfo: { name: 'test-client', version: '1.0.0' } });
}

/** The standard headers a conforming client sends for a body (the testing kit's `mcpHeaders`). */
export const headersFor = mcpHeaders;

/** POSTs a body to the MCP endpoint with conforming headers; `headers` overrides or removes (undefined) any. */
export function post(
  app: INestApplication,
  body: unknown,
  headers: Record<string, string | undefined> = {},
  path = '/mcp',
): request.Test {
  const merged: Record<string, string | undefined> = {
    ...(typeof body === 'object' && body !== null && !Array.isArray(body)
      ? headersFor(body as Record<string, unknown>)
      : { 'content-type': 'application/json' }),
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
