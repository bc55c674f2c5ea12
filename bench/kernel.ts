import { Bench } from 'tinybench';
import { ADD_TOOL, PROTOCOL_VERSION, toolDefinitions } from './fixtures.js';
import { McpKernel } from '../src/core/index.js';

/** A kernel with the benchmark's five tools, `add` first. */
export function benchKernel(): McpKernel {
  const kernel = new McpKernel({ name: 'bench', version: '1.0.0' });
  kernel.registerTool(
    ADD_TOOL.name,
    ADD_TOOL.description,
    ADD_TOOL.inputSchema,
    ({ a, b }: { a: number; b: number }) => a + b,
  );
  for (const tool of toolDefinitions(5).slice(1))
    kernel.registerTool(tool.name, tool.description, tool.inputSchema, () => 'ok');
  return kernel;
}

/**
 * In-process cost of the kernel alone: `handleRequest` for a `tools/call` of `add` with a small argument
 * object validated against its schema (no HTTP, no parsing). Prints the median in microseconds.
 */
export async function measureKernel(smoke: boolean): Promise<{ medianUs: number; samples: number }> {
  const kernel = benchKernel();
  const message = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'add',
      arguments: { a: 2, b: 3 },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const check = await kernel.handleRequest(message);
  if (!check || !('result' in check) || (check.result.content as Array<{ text: string }>)[0].text !== '5') {
    throw new Error(`kernel answered unexpectedly: ${JSON.stringify(check)}`);
  }
  const bench = new Bench({ time: smoke ? 200 : 2000, warmupTime: smoke ? 50 : 500 });
  bench.add('handleRequest tools/call', () => kernel.handleRequest(message));
  await bench.run();
  const result = bench.tasks[0].result as { latency?: { p50: number; samplesCount?: number }; runtime?: unknown };
  if (!result.latency) throw new Error('the kernel micro-benchmark produced no latency');
  return { medianUs: result.latency.p50 * 1000, samples: bench.tasks[0].runs };
}
