import 'reflect-metadata';
import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { McpModule, Tool } from '../src/index.js';
import { PROTOCOL_VERSION } from './fixtures.js';
import { createNestApp } from './servers/nest-app.js';
import { timeInterleaved } from './interleaved.js';

@Injectable()
class UpstreamTools {
  @Tool({
    name: 'lookup',
    description: 'A small lookup',
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  })
  lookup(args: { id: number }): { content: unknown[]; structuredContent: Record<string, unknown> } {
    const value = { id: args.id, item: 'tea', quantity: 2 };
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'upstream', version: '1.0.0', observability: { logFailedCalls: false } })],
  providers: [UpstreamTools],
})
class UpstreamModule {}

/** A gateway with no tools of its own, mounting the upstream at `url` under `up_`. */
function gatewayModule(url: string): DynamicModule {
  @Module({})
  class GatewayModule {}
  return {
    module: GatewayModule,
    imports: [
      McpModule.forRoot({
        name: 'gateway',
        version: '1.0.0',
        observability: { logFailedCalls: false },
        upstreams: [{ prefix: 'up', url }],
      }),
    ],
  };
}

export interface GatewayFigures {
  /** Median wall time of one request, sequential, client in this process (ms). */
  mountedMs: number;
  directMs: number;
  /** This process's CPU time per request (the client, the gateway and the upstream alike), µs. */
  mountedCpuUs: number;
  directCpuUs: number;
}

/**
 * A `tools/call` through a gateway against the same call made to its upstream directly: two Nest + Fastify apps
 * of this library on loopback in this process, the gateway mounting the other; one request at a time, the two
 * kinds interleaved so a busy neighbour skews them alike.
 */
export async function measureGateway(smoke: boolean): Promise<GatewayFigures> {
  const upstream = await createNestApp(UpstreamModule, 'fastify');
  await upstream.listen(0, '127.0.0.1');
  const upstreamUrl = `http://127.0.0.1:${(upstream.getHttpServer().address() as { port: number }).port}/mcp`;
  const gateway = await createNestApp(gatewayModule(upstreamUrl) as never, 'fastify');
  try {
    await gateway.listen(0, '127.0.0.1');
    const gatewayUrl = `http://127.0.0.1:${(gateway.getHttpServer().address() as { port: number }).port}/mcp`;
    const kinds = { mounted: call(gatewayUrl, 'up_lookup'), direct: call(upstreamUrl, 'lookup') };
    const figures = await timeInterleaved(kinds, smoke ? 20 : 1000);
    return {
      mountedMs: figures.mounted.ms,
      directMs: figures.direct.ms,
      mountedCpuUs: figures.mounted.cpuUs,
      directCpuUs: figures.direct.cpuUs,
    };
  } finally {
    await gateway.close();
    await upstream.close();
  }
}

/** One 2026-07-28 tools/call of `name` at `url`, its answer checked: a wrong answer gets no figure. */
function call(url: string, name: string): () => Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: { id: 12 },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': name,
  };
  return async () => {
    const response = await fetch(url, { method: 'POST', headers, body });
    const json = (await response.json()) as { result?: { structuredContent?: { id?: number } } };
    if (json.result?.structuredContent?.id !== 12) throw new Error(`${name} answered ${JSON.stringify(json)}`);
  };
}
