import type { INestApplication } from '@nestjs/common';
import { CONFORMANCE_PROVIDERS } from '../../examples/conformance/app.module.js';
import { fixtureMcpModules } from '../../examples/conformance/mcp-setup.js';
import { mcpHeaders, sseMessages } from '../../src/testing/index.js';
import { createApp, type HttpAdapterName } from './create-app.js';
import { legacyHeaders, legacyRequest } from './legacy-client.js';
import { listenOnLoopback } from './sse-client.js';

/** The conformance fixture under the given environment (`MCP_LEGACY`, …), listening on loopback for `fetch`. */
export async function startFixture(
  env: NodeJS.ProcessEnv,
  adapter: HttpAdapterName,
): Promise<{ app: INestApplication; url: string }> {
  const app = await createApp(fixtureMcpModules(env), CONFORMANCE_PROVIDERS, adapter);
  return { app, url: await listenOnLoopback(app) };
}

export interface RawReply {
  status: number;
  headers: Headers;
  /** The JSON body, or every message of an SSE stream in order. */
  messages: Array<Record<string, unknown>>;
}

/** One POST as the referee sends it with `fetch`, read to its end. */
export async function rawPost(url: string, body: unknown, headers: Record<string, string>): Promise<RawReply> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  const streamed = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  return {
    status: res.status,
    headers: res.headers,
    messages: streamed ? sseMessages(text) : text ? [JSON.parse(text)] : [],
  };
}

/** The headers a conforming 2026-07-28 client sends with `body`. */
export const modernHeaders = (body: { method?: unknown; params?: unknown }) => mcpHeaders(body);

/** A 2025-era client's headers, with its session when it has one. */
export function eraHeaders(version: string, session?: string | null): Record<string, string> {
  const headers = Object.fromEntries(
    Object.entries(legacyHeaders(version)).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  if (session) headers['mcp-session-id'] = session;
  return headers;
}

/** The reply to the request among a stream's messages (its notifications come before it). */
export const replyTo = (reply: RawReply, id: unknown) => reply.messages.find((m) => m.id === id && !('method' in m));

/** The notifications of a stream with the given method. */
export const notificationsOf = (reply: RawReply, method: string) =>
  reply.messages.filter((m) => m.method === method).map((m) => m.params as Record<string, unknown>);

/** A 2025-11-25 client's `initialize`, as the referee's raw scenarios send it. */
export const legacyInitialize = (name: string, id: string | number = 1) =>
  legacyRequest(
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1.0.0' } },
    id,
  );
