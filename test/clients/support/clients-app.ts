import 'reflect-metadata';
import { Injectable, type INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import { Args, MCPServer, McpCtx, McpModule, Tool, type McpContext } from '../../../src/index.js';
import type { HttpAdapterName } from '../../support/create-app.js';
import { closeListening, listenOnLoopback } from '../../support/sse-client.js';

/**
 * The tools every client drives, written once with the decorators: the same handler serves a 2025-era client
 * (the server asks over the POST's SSE stream) and a 2026-era one (an input_required round).
 */
@Injectable()
export class ClientsTools {
  @Tool({
    description: 'Greets someone',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  })
  greet(@Args('name') name: string) {
    return `Hello, ${name}!`;
  }

  @Tool({
    description: 'Deletes a file once the user confirms',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  })
  async delete_file(@Args('path') path: string, @McpCtx() ctx: McpContext) {
    const answer = await ctx.elicit(`Delete ${path}?`, {
      type: 'object',
      properties: { confirm: { type: 'boolean' } },
      required: ['confirm'],
    });
    return answer.action === 'accept' && answer.content?.confirm === true ? `Deleted ${path}` : 'Nothing was deleted.';
  }

  @Tool({
    description: "Asks the client's model a question",
    inputSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
  })
  async ask_model(@Args('question') question: string, @McpCtx() ctx: McpContext) {
    const answer = await ctx.sample(question, { maxTokens: 50 });
    return `The model said: ${textOf(answer.content)}`;
  }

  // A zod schema: its JSON Schema is what some clients (Genkit) validate with before they call.
  @Tool({
    description: 'Books a meeting room',
    inputSchema: z.object({ room: z.string().min(1), hours: z.number().int().positive() }),
  })
  book_room(@Args() args: { room: string; hours: number }) {
    return `Booked ${args.room} for ${args.hours}h`;
  }

  @Tool({ description: "Lists the client's roots", inputSchema: { type: 'object', properties: {} } })
  async client_roots(@McpCtx() ctx: McpContext) {
    const roots = await ctx.listRoots();
    return `Roots: ${roots.map((root) => root.uri).join(', ')}`;
  }

  // With sessions, a long call may end its stream and answer later: the client resumes with Last-Event-ID.
  @Tool({ description: 'Ends its stream, then reports', inputSchema: { type: 'object', properties: {} } })
  async slow_report(@McpCtx() ctx: McpContext) {
    const closed = ctx.closeStream();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return closed ? 'Report ready (stream was closed)' : 'Report ready';
  }
}

/** The text of a content block (a sampling answer, a sampling prompt), or the block as JSON. */
export function textOf(content: unknown): string {
  const text = (content as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : JSON.stringify(content);
}

export const TOOL_NAMES = ['greet', 'delete_file', 'ask_model', 'book_room', 'client_roots', 'slow_report'];

/** What the clients' request handlers answer, so each test can tell the round trip really happened. */
export const MODEL_REPLY = 'Paris, as ever';
export const CLIENT_ROOT = 'file:///work/project';

export interface ClientsApp {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The app's server, to register at run time (a list change its sessions' GET streams are told of). */
  server: MCPServer;
  close(): Promise<void>;
}

/**
 * The app on 127.0.0.1 and a free port, with the module's defaults (2025 clients served statelessly), or with
 * `legacy.mode` 'stateful' (a session per 2025-era client).
 */
export async function startClientsApp(
  adapter: HttpAdapterName = 'express',
  legacyMode: 'stateless' | 'stateful' = 'stateless',
): Promise<ClientsApp> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      McpModule.forRoot({
        name: 'clients-e2e',
        version: '1.0.0',
        instructions: 'Tools for the client e2e suite',
        observability: { logFailedCalls: false },
        ...(legacyMode === 'stateful' ? { legacy: { mode: 'stateful' as const, sessions: { retryMs: 100 } } } : {}),
      }),
    ],
    providers: [ClientsTools],
  }).compile();
  const app: INestApplication =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  const url = await listenOnLoopback(app);
  return { url, server: app.get(MCPServer), close: () => closeListening(app) };
}
