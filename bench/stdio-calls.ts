import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { ADD_TOOL, LEGACY_PROTOCOL_VERSION, PROTOCOL_VERSION } from './fixtures.js';
import { benchKernel } from './kernel.js';
import { McpStdioDriver, type McpKernel } from '../src/core/index.js';

/** Round trips per CPU-second: over the stdio driver in each era, and the kernel's own call beside them. */
export interface StdioCallsRow {
  modern: number;
  legacy: number;
  kernel: number;
}

const CALL = { name: ADD_TOOL.name, arguments: { a: 2, b: 3 } };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * A client on the driver's pipe, in process: each line written is the request, and the next is sent once its
 * answer comes back, so a round trip is the driver's parse, dispatch and write of one call with nothing queued.
 */
class PipeClient {
  private readonly input = new PassThrough();
  private waiting: ((line: string) => void) | undefined;
  private readonly served: Promise<void>;

  constructor(kernel: McpKernel) {
    const output = {
      write: (data: string | Uint8Array, callback?: (error?: Error | null) => void) => {
        callback?.();
        const line = String(data);
        // Only answers end a round trip: a notification would have a method.
        if (line.includes('"method"')) return true;
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve?.(line);
        return true;
      },
    };
    this.served = new McpStdioDriver(kernel).serve(this.input, output);
  }

  /** Sends one line (a request, newline-terminated) and resolves with its answer. */
  call(line: string): Promise<string> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.input.write(line);
    });
  }

  end(): Promise<void> {
    this.input.end();
    return this.served;
  }
}

/** CPU-seconds of this process (user and system) that `run` takes. */
async function cpuSeconds(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

async function roundTrips(client: PipeClient, calls: number, legacy: boolean): Promise<number> {
  // The lines are written before the clock starts: the client's serialization is not the driver's cost.
  const params = legacy ? CALL : { ...CALL, _meta: ENVELOPE };
  const lines = Array.from(
    { length: calls },
    (_, id) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })}\n`,
  );
  const seconds = await cpuSeconds(async () => {
    for (const line of lines) {
      const answer = await client.call(line);
      if (!answer.includes('"text":"5"')) throw new Error(`the stdio driver answered unexpectedly: ${answer}`);
    }
  });
  return calls / seconds;
}

async function kernelCalls(kernel: McpKernel, calls: number): Promise<number> {
  const seconds = await cpuSeconds(async () => {
    for (let id = 0; id < calls; id++) {
      const answer = await kernel.handleRequest({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { ...CALL, _meta: ENVELOPE },
      });
      if (!answer || !('result' in answer))
        throw new Error(`the kernel answered unexpectedly: ${JSON.stringify(answer)}`);
    }
  });
  return calls / seconds;
}

/**
 * `tools/call add` round trips per CPU-second over the stdio driver (2026-07-28, and 2025-era after `initialize`)
 * and through the kernel's `handleRequest` in the same process: the driver's own cost is their ratio. Batches are
 * interleaved and the median kept, so a busy machine moves all three alike.
 */
export async function measureStdioCalls(smoke: boolean): Promise<StdioCallsRow> {
  const calls = smoke ? 2_000 : 20_000;
  const batches = smoke ? 1 : 7;
  const modern = new PipeClient(benchKernel());
  const legacy = new PipeClient(benchKernel());
  const initialize = {
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: LEGACY_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  };
  await legacy.call(`${JSON.stringify(initialize)}\n`);
  const kernel = benchKernel();
  const samples: Record<keyof StdioCallsRow, number[]> = { modern: [], legacy: [], kernel: [] };
  try {
    // Warm-up: every path compiled before the first batch counts.
    await roundTrips(modern, calls, false);
    await roundTrips(legacy, calls, true);
    await kernelCalls(kernel, calls);
    for (let batch = 0; batch < batches; batch++) {
      samples.modern.push(await roundTrips(modern, calls, false));
      samples.legacy.push(await roundTrips(legacy, calls, true));
      samples.kernel.push(await kernelCalls(kernel, calls));
    }
  } finally {
    await Promise.all([modern.end(), legacy.end()]);
    kernel.close();
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { modern: median(samples.modern), legacy: median(samples.legacy), kernel: median(samples.kernel) };
}

export function printStdioCalls(row: StdioCallsRow, fmt: (n: number, digits?: number) => string): void {
  console.log(
    `stdio tools/call add, in process (round trips per CPU-second, one at a time, median of interleaved batches): ` +
      `2026-07-28 ${fmt(row.modern)}, 2025-era ${fmt(row.legacy)}, the kernel's handleRequest ${fmt(row.kernel)}: ` +
      `stdio ÷ kernel ${fmt(row.modern / row.kernel, 2)} (2026-07-28), ${fmt(row.legacy / row.kernel, 2)} (2025-era)`,
  );
}

// Alone: `node build/bench/stdio-calls.js` (BENCH_SMOKE=1 for a quick check).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  printStdioCalls(await measureStdioCalls(process.env.BENCH_SMOKE === '1'), fmt);
}
