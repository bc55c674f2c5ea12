import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createServer, type Server } from 'node:http';
import { z } from 'zod';
import { PROGRESS_STEPS, toolDefinitions } from '../fixtures.js';

const addInput = z.object({ a: z.number(), b: z.number() });
const progressInput = z.object({});
const fillerInput = z.object({
  query: z.string().describe('Full-text query'),
  limit: z.number().int().min(1).max(100).optional(),
});

/**
 * The official SDK v2 serving entry, used as its docs show: a factory that builds an `McpServer` with its
 * tools (schemas shared across requests), wrapped for Node with `toNodeHandler`. Modern requests only, unless
 * `legacy`: then its default `legacy: 'stateless'` leg serves 2025-era requests too, by a fresh server per request.
 */
export function startSdk(toolCount: number, legacy = false): Server {
  const tools = toolDefinitions(toolCount);
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'bench', version: '1.0.0' });
      server.registerTool('add', { description: tools[0].description, inputSchema: addInput }, async ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
      }));
      server.registerTool(
        'progress',
        { description: tools[1].description, inputSchema: progressInput },
        async (_args, ctx) => {
          const progressToken = ctx.mcpReq._meta?.progressToken;
          if (progressToken !== undefined) {
            for (const progress of PROGRESS_STEPS) {
              await ctx.mcpReq.notify({
                method: 'notifications/progress',
                params: { progressToken, progress, total: PROGRESS_STEPS.length },
              });
            }
          }
          return { content: [{ type: 'text', text: 'done' }] };
        },
      );
      for (const tool of tools.slice(2)) {
        server.registerTool(tool.name, { description: tool.description, inputSchema: fillerInput }, async () => ({
          content: [{ type: 'text', text: 'no matches' }],
        }));
      }
      return server;
    },
    { legacy: legacy ? 'stateless' : 'reject' },
  );
  const node = toNodeHandler(handler);
  return createServer((req, res) => void node(req, res));
}
