import 'reflect-metadata';
import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Server as SdkServer } from 'mcp-sdk-v1/server/index.js';
import { StreamableHTTPServerTransport } from 'mcp-sdk-v1/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from 'mcp-sdk-v1/types.js';
import { Args, MCPServer, McpCtx, McpModule, Prompt, Resource, Tool, type McpContext } from '../../src/index.js';
import { closeListening, listenOnLoopback } from './sse-client.js';

/** The stdio upstream: a node script on the official SDK 1.x. */
export const STDIO_UPSTREAM = fileURLToPath(new URL('./upstream-stdio-server.mjs', import.meta.url));

/** What an upstream was sent: the headers of every HTTP request that reached it. */
export type HeaderLog = IncomingHttpHeaders[];

export const WEATHER_TOOL = {
  name: 'get_weather',
  title: 'Weather',
  description: 'The weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
  _meta: { 'example.com/owner': 'weather-team' },
};

/** What the upstreams' asking tools ask for: a name. */
export const NAME_SCHEMA = {
  type: 'object' as const,
  properties: { name: { type: 'string' as const } },
  required: ['name'],
};

const MONTH_SCHEMA = {
  type: 'object' as const,
  properties: { month: { type: 'string' as const } },
  required: ['month'],
};

export interface RunningUpstream {
  url: string;
  server?: MCPServer;
  headers: HeaderLog;
  /** The calls whose client cancelled them. */
  cancelled: string[];
  close(): Promise<void>;
}

/** A server of this library (2026-07-28, stateless) with a tool, a prompt and a resource. */
export async function startLibraryUpstream(): Promise<RunningUpstream> {
  const headers: HeaderLog = [];
  const cancelled: string[] = [];
  @Injectable()
  class WeatherTools {
    @Tool(WEATHER_TOOL)
    get_weather(@Args('city') city: string, @McpCtx() ctx: McpContext) {
      headers.push((ctx.httpRequest as { headers: IncomingHttpHeaders }).headers);
      return `Sunny in ${city} (${ctx.protocolVersion})`;
    }

    @Tool({ description: 'A forecast, reported in two steps' })
    async forecast(@McpCtx() ctx: McpContext) {
      ctx.reportProgress({ progress: 1, total: 2, message: 'today' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      ctx.reportProgress({ progress: 2, total: 2, message: 'tomorrow' });
      return 'Rain, then sun';
    }

    @Tool({ description: 'Asks the caller for a name, then greets it' })
    async greet(@McpCtx() ctx: McpContext) {
      ctx.log('info', 'about to ask for a name', 'weather');
      const answer = await ctx.elicit('Who is asking?', NAME_SCHEMA);
      return answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}` : `No name (${answer.action})`;
    }

    @Tool({ description: "Asks the caller's model for a haiku" })
    async haiku(@McpCtx() ctx: McpContext) {
      const sampled = await ctx.sample('Write a haiku about rain', { maxTokens: 50 });
      return `The model wrote: ${(sampled.content as { text: string }).text}`;
    }

    @Tool({ description: 'A monthly report: runs only as a task, and asks which month', taskSupport: 'required' })
    async monthly(@McpCtx() ctx: McpContext) {
      ctx.signal.addEventListener('abort', () => cancelled.push('monthly'));
      ctx.reportProgress({ progress: 1, message: 'choosing the month' });
      const month = await ctx.elicit('Which month?', MONTH_SCHEMA);
      return `Report for ${String(month.content?.month)}`;
    }

    @Tool({ description: 'Answers with 20 000 bytes' })
    big() {
      return 'x'.repeat(20_000);
    }

    @Prompt({ name: 'weather_report', description: 'A weather report', arguments: [{ name: 'city', required: true }] })
    weather_report(@Args('city') city: string) {
      return `Write a weather report for ${city}`;
    }

    @Resource({ uri: 'weather://stations', name: 'stations', mimeType: 'text/plain' })
    stations() {
      return 'Paris, Lima';
    }
  }
  const moduleRef = await Test.createTestingModule({
    imports: [McpModule.forRoot({ name: 'weather', version: '1.0.0', observability: { logFailedCalls: false } })],
    providers: [WeatherTools],
  }).compile();
  const app: INestApplication = moduleRef.createNestApplication({ logger: false });
  const url = await listenOnLoopback(app);
  return { url, headers, cancelled, server: app.get(MCPServer), close: () => closeListening(app) };
}

/** An official SDK 1.x server (2025-11-25) with sessions: a server and a transport per `initialize`. */
export async function startSdkV1Upstream(): Promise<RunningUpstream & { calls: string[]; tools: object[] }> {
  const headers: HeaderLog = [];
  const calls: string[] = [];
  /** The calls whose client cancelled them. */
  const cancelled: string[] = [];
  /** Tools the test adds at run time; the server does not announce them (no listChanged). */
  const tools: object[] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const server: Server = createServer((request, response) => {
    headers.push(request.headers);
    const id = request.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void transports.set(sessionId, created),
      });
      void sdkServer(calls, cancelled, tools).connect(created);
      transport = created;
    }
    void transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    calls,
    cancelled,
    tools,
    close: async () => {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const EMPTY = { type: 'object' as const, properties: {} };

function sdkServer(calls: string[], cancelled: string[], added: object[]): SdkServer {
  const server = new SdkServer(
    { name: 'legacy', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'lookup',
        description: 'Looks a customer up',
        inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
        outputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      { name: 'confirm', description: "Asks the caller to confirm, on the call's stream", inputSchema: EMPTY },
      { name: 'summarize', description: "Asks the caller's model for a summary", inputSchema: EMPTY },
      ...(added as Array<{ name: string; inputSchema: { type: 'object' } }>),
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    calls.push(request.params.name);
    extra.signal.addEventListener('abort', () => cancelled.push(request.params.name));
    if (request.params.name === 'confirm') {
      // A 2025-era server asks on the stream of the call that needs the answer (relatedRequestId).
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', logger: 'legacy', data: 'asking for a name' },
      });
      const answer = await extra.sendRequest(
        { method: 'elicitation/create', params: { message: 'Your name, please', requestedSchema: NAME_SCHEMA } },
        ElicitResultSchema,
      );
      const text = answer.action === 'accept' ? `Confirmed by ${String(answer.content?.name)}` : answer.action;
      return { content: [{ type: 'text', text }] };
    }
    if (request.params.name === 'summarize') {
      const sampled = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }], maxTokens: 20 },
        },
        CreateMessageResultSchema,
      );
      return { content: [{ type: 'text', text: `Summary: ${(sampled.content as { text: string }).text}` }] };
    }
    const structured = { name: `customer ${String(request.params.arguments?.id)}` };
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [{ uri: 'legacy://terms', name: 'terms', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
    contents: [{ uri: request.params.uri, mimeType: 'text/plain', text: 'The terms' }],
  }));
  return server;
}
