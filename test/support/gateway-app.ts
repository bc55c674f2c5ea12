import 'reflect-metadata';
import type { Provider } from '@nestjs/common';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from 'mcp-sdk-v1/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from 'mcp-sdk-v1/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from 'mcp-sdk-v1/types.js';
import { McpModule, type McpModuleOptions } from '../../src/index.js';
import type { McpModuleUpstream } from '../../src/nest/upstreams/upstream-options.interface.js';
import { createApp, type HttpAdapterName } from './create-app.js';
import { closeListening, listenOnLoopback } from './sse-client.js';

export interface Gateway {
  url: string;
  close(): Promise<void>;
}

/** A Nest app of this library mounting `upstreams`, listening on loopback. */
export async function startGateway(
  upstreams: McpModuleUpstream[],
  adapter: HttpAdapterName,
  providers: Function[],
  options: Partial<McpModuleOptions> = {},
): Promise<Gateway> {
  const mcp = McpModule.forRoot({
    name: 'gateway',
    version: '1.0.0',
    upstreams,
    observability: { logFailedCalls: false },
    ...options,
  });
  const app = await createApp([mcp], providers as Provider[], adapter);
  const url = await listenOnLoopback(app);
  return { url, close: () => closeListening(app) };
}

/** What a connected client was asked by the server, and the logs it was sent. */
export interface Asked {
  elicitations: string[];
  samplings: unknown[];
  logs: unknown[];
}

/**
 * How a client answers the server's requests for input: with `name` for a form, `model` text for sampling.
 * Without it, the client declares no capability to answer.
 */
export interface Answers {
  name?: string;
  model?: string;
}

/** A client of the official SDK 2.x, negotiating 2026-07-28, or of 1.x, speaking 2025-11-25. */
export async function connect(
  url: string,
  era: '2026' | '2025',
  headers: Record<string, string>,
  answers?: Answers,
  asked: Asked = { elicitations: [], samplings: [], logs: [] },
): Promise<Client> {
  const capabilities = answers ? { elicitation: { form: {} }, sampling: {} } : {};
  const elicit = (message: string) => {
    asked.elicitations.push(message);
    return { action: 'accept' as const, content: { name: answers?.name ?? '' } };
  };
  const sample = (messages: unknown) => {
    asked.samplings.push(messages);
    return {
      role: 'assistant' as const,
      model: 'test-model',
      content: { type: 'text' as const, text: answers?.model ?? '' },
    };
  };
  if (era === '2026') {
    const client = new Client(
      { name: 'client-2026', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' }, capabilities },
    );
    if (answers) {
      client.setRequestHandler('elicitation/create', (request) => elicit(request.params.message));
      client.setRequestHandler('sampling/createMessage', (request) => sample(request.params.messages));
    }
    client.setNotificationHandler('notifications/message', (notification) => void asked.logs.push(notification.params));
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  }
  const client = new ClientV1({ name: 'client-2025', version: '1.0.0' }, { capabilities });
  if (answers) {
    client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
    client.setRequestHandler(CreateMessageRequestSchema, (request) => sample(request.params.messages));
  }
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (notification) => void asked.logs.push(notification.params),
  );
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers } }));
  return client as unknown as Client;
}

export const textOf = (result: object) =>
  ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? '').join('');

/** Polls `check` until it gives a value (the jest timeout, or `ms`, bounds it). */
export async function until<T>(check: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
