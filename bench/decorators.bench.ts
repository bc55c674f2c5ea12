/**
 * Per-call cost of a decorated tool on the fast path (no enhancer in reach: the method is called directly)
 * against the same tool behind a guard and an interceptor (Nest's pipeline via ExternalContextCreator), and
 * against a tool registered with `registerTool`. Calls go through `MCPServer.handleRequest` (no HTTP), so the
 * figures isolate the dispatch cost. Run: `npm run build:all && node build/bench/decorators.bench.js`.
 */
import 'reflect-metadata';
import {
  Injectable,
  Module,
  UseGuards,
  UseInterceptors,
  type CallHandler,
  type CanActivate,
  type NestInterceptor,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Args, McpModule, MCPServer, Tool } from '../src/index.js';

@Injectable()
class AllowGuard implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Injectable()
class PassInterceptor implements NestInterceptor {
  intercept(_context: unknown, next: CallHandler) {
    return next.handle();
  }
}

const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };

@Injectable()
class BenchTools {
  @Tool({ name: 'fast', description: 'No enhancers', inputSchema: schema })
  fast(@Args() args: { a: number; b: number }): number {
    return args.a + args.b;
  }

  @Tool({ name: 'piped', description: 'Guard and interceptor', inputSchema: schema })
  @UseGuards(AllowGuard)
  @UseInterceptors(PassInterceptor)
  piped(@Args() args: { a: number; b: number }): number {
    return args.a + args.b;
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'bench', version: '1.0.0' })], providers: [BenchTools] })
class BenchModule {}

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function measure(server: MCPServer, name: string, calls: number): Promise<number> {
  const request = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: { a: 1, b: 2 }, _meta: meta },
  });
  for (let i = 0; i < 2000; i++) await server.handleRequest(request(i));
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await server.handleRequest(request(i));
  return Number(process.hrtime.bigint() - start) / calls / 1000;
}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: false });
  const server = app.get(MCPServer);
  server.registerTool('direct', 'registerTool', schema, (args: { a: number; b: number }) => args.a + args.b);
  const calls = Number(process.env.CALLS ?? 20000);
  // Rounds interleave the three tools and the best round counts, so a busy neighbour skews less.
  const best: Record<string, number> = { direct: Infinity, fast: Infinity, piped: Infinity };
  for (let round = 0; round < 5; round++) {
    for (const name of Object.keys(best)) best[name] = Math.min(best[name], await measure(server, name, calls));
  }
  for (const [name, micros] of Object.entries(best)) console.log(`${name.padEnd(8)} ${micros.toFixed(2)} µs/call`);
  await app.close();
}

void main();
