import { Module, type INestApplication } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { McpController, McpStrategy, StreamableHttpTransport, Tool, type McpContext } from '@rekog/mcp-nest';
import { z } from 'zod';
import { ADD_TOOL, PROGRESS_STEPS, PROGRESS_TOOL, toolDefinitions } from '../fixtures.js';
import { createNestApp, type AdapterName } from './nest-app.js';

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/** The filler tool's JSON Schema (`fillerTool` in the fixtures) as zod, RK's native schema language. */
function fillerParameters(index: number) {
  return z.strictObject({
    query: z.string().describe(`Full-text query over collection ${index}`),
    limit: z.number().int().min(1).max(100).describe('How many matches to return').optional(),
  });
}

/**
 * `@rekog/mcp-nest` 2.0.5 used as its README shows: tools on an `@McpController()` class, an `McpStrategy`
 * with a `StreamableHttpTransport` self-mounted on the Nest HTTP adapter at `/mcp`, connected as a
 * microservice. The transport's default is stateless; `protocol: 'modern-only'` sends every POST straight to
 * its 2026-07-28 leg (the SDK's `createMcpHandler`), as the SDK row's `legacy: 'reject'` does, so no request
 * pays for the era classification the default dual-era endpoint adds. With `legacy`, its default `'dual'`
 * serves 2025-era requests too, on its stateless legacy leg.
 */
export async function startRekog(adapter: AdapterName, toolCount: number, legacy = false): Promise<INestApplication> {
  @McpController()
  class BenchTools {
    @Tool({
      name: ADD_TOOL.name,
      description: ADD_TOOL.description,
      parameters: z.strictObject({ a: z.number(), b: z.number() }),
    })
    add(@Payload() { a, b }: { a: number; b: number }) {
      return text(String(a + b));
    }

    @Tool({ name: PROGRESS_TOOL.name, description: PROGRESS_TOOL.description, parameters: z.object({}) })
    async progress(@Payload() _args: unknown, @Ctx() ctx: McpContext) {
      for (const progress of PROGRESS_STEPS) await ctx.reportProgress({ progress, total: PROGRESS_STEPS.length });
      return text('done');
    }
  }

  // `@Tool` is an ordinary method decorator, so the filler tools get it the way compiled decorator syntax
  // applies it: a method per tool on the controller's prototype, decorated before Nest scans the class.
  toolDefinitions(toolCount)
    .slice(2)
    .forEach((tool, i) => {
      const method: PropertyDescriptor = { value: () => text('no matches'), writable: true, configurable: true };
      const decorator = Tool({ name: tool.name, description: tool.description, parameters: fillerParameters(i + 2) });
      Object.defineProperty(
        BenchTools.prototype,
        tool.name,
        Reflect.decorate([decorator], BenchTools.prototype, tool.name, method) ?? method,
      );
    });

  @Module({ controllers: [BenchTools] })
  class RekogModule {}

  const mcp = new McpStrategy({
    name: 'bench',
    version: '1.0.0',
    transports: [new StreamableHttpTransport({ protocol: legacy ? 'dual' : 'modern-only' })],
  });
  const app = await createNestApp(RekogModule, adapter);
  mcp.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy: mcp });
  // Mounts the MCP route, so it has to run before the caller's listen().
  await app.startAllMicroservices();
  return app;
}
