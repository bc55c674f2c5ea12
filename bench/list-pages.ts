import { pathToFileURL } from 'node:url';
import { McpKernel } from '../src/core/index.js';
import { serializeWithinLimit } from '../src/server/response-serializer.js';
import { PROTOCOL_VERSION, toolDefinitions } from './fixtures.js';

/**
 * Every list method at 10 and at 1,000 entries, in one page (`limits.pageSize: 1000`): the library's work per
 * request in process, `handleRequest` and the serialization a transport then writes (`serializeWithinLimit`),
 * without the socket. A list written from the bytes serialized once per registry version costs about the
 * same at either size; a list stringified per request costs its size.
 */
export interface ListPagesRow {
  method: string;
  /** Median µs per request at 10 and at 1,000 entries. */
  small: number;
  large: number;
}

const SIZES = [10, 1_000] as const;
const DESCRIPTION = 'Looks up the records of one kind by their name, and answers with what it found, in order';

interface ListKind {
  method: string;
  key: string;
  params?: Record<string, unknown>;
  fill(kernel: McpKernel, count: number): void;
}

const KINDS: ListKind[] = [
  {
    method: 'tools/list',
    key: 'tools',
    fill: (kernel, count) => {
      for (const tool of toolDefinitions(count))
        kernel.registerTool(tool.name, tool.description, tool.inputSchema, () => 'ok');
    },
  },
  {
    method: 'prompts/list',
    key: 'prompts',
    fill: (kernel, count) => {
      for (let i = 0; i < count; i++)
        kernel.addPrompt({
          name: `prompt_${i}`,
          description: DESCRIPTION,
          arguments: [{ name: 'topic', description: 'What to write about', required: true }],
          handler: () => 'ok',
        });
    },
  },
  {
    method: 'resources/list',
    key: 'resources',
    fill: (kernel, count) => {
      for (let i = 0; i < count; i++)
        kernel.addResource({
          uri: `file:///records/${i}.json`,
          name: `record_${i}`,
          description: DESCRIPTION,
          mimeType: 'application/json',
          handler: () => '{}',
        });
    },
  },
  {
    method: 'resources/templates/list',
    key: 'resourceTemplates',
    fill: (kernel, count) => {
      for (let i = 0; i < count; i++)
        kernel.addResourceTemplate({
          uriTemplate: `file:///kind${i}/{id}`,
          name: `kind_${i}`,
          description: DESCRIPTION,
          mimeType: 'application/json',
          handler: () => '{}',
        });
    },
  },
  {
    method: 'skills/list',
    key: 'skills',
    fill: (kernel, count) => {
      for (let i = 0; i < count; i++)
        kernel.addSkill({ name: `skill-${i}`, description: DESCRIPTION, body: 'Steps to follow.' });
    },
  },
  {
    method: 'events/list',
    key: 'events',
    fill: (kernel, count) => {
      for (let i = 0; i < count; i++)
        kernel.addEvent({
          name: `record.changed${i}`,
          description: DESCRIPTION,
          payloadSchema: { type: 'object', properties: { id: { type: 'string' } } },
        });
    },
  },
];

function message(kind: ListKind) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { jsonrpc: '2.0', id: 1, method: kind.method, params: { ...kind.params, _meta } };
}

/** One request's work, checked: the answer lists `count` entries. */
async function answer(kernel: McpKernel, kind: ListKind, count?: number): Promise<void> {
  const response = await kernel.handleRequest(message(kind));
  const body = serializeWithinLimit(response!, Number.MAX_SAFE_INTEGER);
  if (count === undefined) return;
  const text = typeof body === 'string' ? body : Buffer.concat(body).toString('utf8');
  const listed = JSON.parse(text).result?.[kind.key]?.length;
  if (listed !== count)
    throw new Error(`${kind.method} listed ${listed} entries, expected ${count}: ${text.slice(0, 200)}`);
}

/** µs per request over a batch of at least `ms` milliseconds. */
async function sample(kernel: McpKernel, kind: ListKind, ms: number): Promise<number> {
  const started = process.hrtime.bigint();
  const until = started + BigInt(ms * 1e6);
  let requests = 0;
  do {
    for (let n = 0; n < 5; n++) await answer(kernel, kind);
    requests += 5;
  } while (process.hrtime.bigint() < until);
  return Number(process.hrtime.bigint() - started) / 1e3 / requests;
}

/** Median µs per request over `rounds` batches, the sizes interleaved within each round, in turn first. */
export async function measureListPages(smoke: boolean): Promise<ListPagesRow[]> {
  const rounds = smoke ? 1 : 21;
  const ms = smoke ? 5 : 25;
  const rows: ListPagesRow[] = [];
  for (const kind of KINDS) {
    const kernels = SIZES.map((count) => {
      const kernel = new McpKernel({ name: 'bench', version: '1.0.0', limits: { pageSize: 1_000 } });
      kind.fill(kernel, count);
      return kernel;
    });
    const samples: number[][] = SIZES.map(() => []);
    try {
      for (const [i, kernel] of kernels.entries()) {
        await answer(kernel, kind, SIZES[i]);
        await sample(kernel, kind, smoke ? 5 : 200);
      }
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 ? [1, 0] : [0, 1];
        for (const i of order) samples[i].push(await sample(kernels[i], kind, ms));
      }
    } finally {
      for (const kernel of kernels) kernel.close();
    }
    const [small, large] = samples.map((s) => s.sort((a, b) => a - b)[Math.floor(s.length / 2)]);
    rows.push({ method: kind.method, small, large });
  }
  return rows;
}

export function printListPages(rows: ListPagesRow[], fmt: (n: number, digits?: number) => string): void {
  console.log(
    '\nLists at 10 and 1,000 entries in one page, in process (handleRequest and the serialization a transport ' +
      'writes, no socket; median of interleaved batches):\n',
  );
  console.log('| list | 10 entries µs/req | 1,000 entries µs/req | 1,000 ÷ 10 |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows)
    console.log(`| ${row.method} | ${fmt(row.small, 1)} | ${fmt(row.large, 1)} | ${fmt(row.large / row.small, 2)} |`);
}

// Alone: `node build/bench/list-pages.js` (BENCH_SMOKE=1 for a quick check).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  printListPages(await measureListPages(process.env.BENCH_SMOKE === '1'), fmt);
}
