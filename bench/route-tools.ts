import 'reflect-metadata';
import { Controller, Get, Injectable, Module, Param, ParseIntPipe, Query } from '@nestjs/common';
import { McpModule, RouteTool, Tool } from '../src/index.js';
import { PROTOCOL_VERSION } from './fixtures.js';
import { createNestApp, type AdapterName } from './servers/nest-app.js';
import { timeInterleaved } from './interleaved.js';

/** The same small lookup three ways: a REST route, that route as a route tool, and a plain `@Tool`. */
function lookup(id: number, expand?: string): Record<string, unknown> {
  return { id, item: 'tea', quantity: 2, expand: expand ?? null };
}

@Controller('orders')
class BenchOrdersController {
  @Get(':id')
  @RouteTool({ name: 'route_lookup' })
  findOne(@Param('id', ParseIntPipe) id: number, @Query('expand') expand?: string): Record<string, unknown> {
    return lookup(id, expand);
  }
}

@Injectable()
class BenchTools {
  @Tool({
    name: 'plain_lookup',
    description: 'The same lookup as a @Tool',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'integer' }, expand: { type: 'string' } },
      required: ['id'],
    },
  })
  lookup(args: { id: number; expand?: string }): { content: unknown[]; structuredContent: Record<string, unknown> } {
    const value = lookup(args.id, args.expand);
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'bench', version: '1.0.0', observability: { logFailedCalls: false } })],
  controllers: [BenchOrdersController],
  providers: [BenchTools],
})
class RouteBenchModule {}

export interface RouteToolFigures {
  adapter: AdapterName;
  /** Median wall time of one request, sequential, client in this process (ms). */
  routeToolMs: number;
  httpRouteMs: number;
  plainToolMs: number;
  /** This process's CPU time per request (server and the fetch client alike), µs. */
  routeToolCpuUs: number;
  httpRouteCpuUs: number;
  plainToolCpuUs: number;
}

/**
 * A route-tool call against the same route over HTTP and against a plain `@Tool` doing the same work, on one
 * Nest app listening on loopback: one request at a time, the three kinds interleaved so a busy neighbour
 * skews them alike.
 */
export async function measureRouteTools(adapter: AdapterName, smoke: boolean): Promise<RouteToolFigures> {
  const app = await createNestApp(RouteBenchModule, adapter);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const mcpCall = (name: string) => async () => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: { id: 12, expand: 'lines' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { result?: { structuredContent?: { id?: number } } };
    if (json.result?.structuredContent?.id !== 12) throw new Error(`${name} answered ${JSON.stringify(json)}`);
  };
  const httpRoute = async () => {
    const response = await fetch(`${base}/orders/12?expand=lines`);
    const json = (await response.json()) as { id?: number };
    if (json.id !== 12) throw new Error(`GET /orders/12 answered ${JSON.stringify(json)}`);
  };
  const kinds = { routeTool: mcpCall('route_lookup'), httpRoute, plainTool: mcpCall('plain_lookup') };
  try {
    const figures = await timeInterleaved(kinds, smoke ? 20 : 1000);
    return {
      adapter,
      routeToolMs: figures.routeTool.ms,
      httpRouteMs: figures.httpRoute.ms,
      plainToolMs: figures.plainTool.ms,
      routeToolCpuUs: figures.routeTool.cpuUs,
      httpRouteCpuUs: figures.httpRoute.cpuUs,
      plainToolCpuUs: figures.plainTool.cpuUs,
    };
  } finally {
    await app.close();
  }
}
