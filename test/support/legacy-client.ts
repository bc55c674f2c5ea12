import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { LiveResponse } from './sse-client.js';

/** The headers a 2025-era client sends: no envelope headers, and the transport version when it has one. */
export function legacyHeaders(version: string | undefined = '2025-11-25'): Record<string, string | undefined> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    'mcp-method': undefined,
    'mcp-name': undefined,
  };
}

let nextId = 1;

/** A 2025-era request body: no `_meta` envelope. */
export function legacyRequest(
  method: string,
  params?: Record<string, unknown>,
  id: string | number = nextId++,
): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** POSTs a body the way a 2025-era client does; `headers` override (undefined removes). */
export function legacyPost(
  app: INestApplication,
  body: unknown,
  headers: Record<string, string | undefined> = {},
  path = '/mcp',
): request.Test {
  let req = request(app.getHttpServer()).post(path);
  for (const [name, value] of Object.entries({ ...legacyHeaders(), ...headers }))
    if (value !== undefined) req = req.set(name, value);
  return req.send(JSON.stringify(body));
}

export interface ServerRequestFrame {
  jsonrpc: '2.0';
  id: string;
  method: string;
  params?: Record<string, unknown>;
}

export interface AnsweredCall {
  /** The server→client requests the call's stream carried, in order. */
  requests: ServerRequestFrame[];
  /** The HTTP status each posted reply got. */
  replyStatuses: number[];
  /** The notifications (progress, log) on the stream. */
  notifications: Array<Record<string, unknown>>;
  /** The final response to the call. */
  response: Record<string, unknown>;
  /** Response headers of the call's POST. */
  headers: Headers;
}

/**
 * A raw 2025-era client over real HTTP: POSTs `body`, reads the SSE stream, answers every server→client request
 * by POSTing `answer(request)` (a JSON-RPC `result` or `error` member) to the endpoint, and returns once the
 * call's own response arrives.
 */
export async function callAnswering(
  url: string,
  body: Record<string, unknown>,
  answer: (request: ServerRequestFrame) => Record<string, unknown>,
  headers: Record<string, string | undefined> = {},
): Promise<AnsweredCall> {
  const sendHeaders = { ...legacyHeaders(), ...headers };
  const live = await LiveResponse.post(url, body, sendHeaders);
  const requests: ServerRequestFrame[] = [];
  const replyStatuses: number[] = [];
  const notifications: Array<Record<string, unknown>> = [];
  for (;;) {
    const frame = await live.next();
    if (frame.id === body.id && !('method' in frame)) {
      live.close();
      return { requests, replyStatuses, notifications, response: frame, headers: live.headers };
    }
    if (typeof frame.method === 'string' && typeof frame.id === 'string') {
      const serverRequest = frame as unknown as ServerRequestFrame;
      requests.push(serverRequest);
      const reply = { jsonrpc: '2.0', id: serverRequest.id, ...answer(serverRequest) };
      const posted = await postReply(url, reply, sendHeaders);
      replyStatuses.push(posted.status);
    } else {
      notifications.push(frame);
    }
  }
}

/** POSTs a JSON-RPC response (a reply to a server request) the way a 2025-era client does. */
export async function postReply(
  url: string,
  reply: unknown,
  headers: Record<string, string | undefined> = legacyHeaders(),
): Promise<{ status: number; body: string; sessionId: string | null }> {
  const sent = Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const res = await fetch(url, { method: 'POST', headers: sent, body: JSON.stringify(reply) });
  return { status: res.status, body: await res.text(), sessionId: res.headers.get('mcp-session-id') };
}
