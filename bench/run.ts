import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  CASES,
  LEGACY_PROTOCOL_VERSION,
  LEGACY_SERVERS,
  PAGING_SERVERS,
  requestBody,
  requestHeaders,
  SERVER_CASES,
  SERVERS,
  type BenchCase,
  type ChildUsage,
  type ServerName,
} from './fixtures.js';
import { measureInputRounds } from './elicitation.js';
import { measureKernel } from './kernel.js';
import { startServerChild, stopServerChild } from './server-process.js';
import { measureStdioStartup } from './stdio-startup.js';
import { measureStdioCalls, printStdioCalls } from './stdio-calls.js';
import { measureHttpTasks } from './tasks.js';
import { measureTasksQueue, printTasksQueue } from './tasks-queue-engine.js';
import { measureListPages, printListPages } from './list-pages.js';
import { measureTaskBytes, printTaskBytes } from './redis-task-bytes.js';
import {
  measurePlaygroundRender,
  measurePlaygroundWeight,
  printPlaygroundRender,
  printPlaygroundWeight,
} from './playground-render.js';
import { measureRouteTools } from './route-tools.js';
import { measureGateway } from './gateway.js';
import { measureEvents, printEvents } from './events.js';
import { measureOsCpu, printOsCpu } from './os/os-cpu.js';
import { measureArgumentShape, printArgumentShape } from './os/argument-shape.js';
import { measureSessionMemory, printSessionMemory } from './os/session-memory.js';

/**
 * `npm run bench`: starts each server in its own process on 127.0.0.1, one at a time, checks that it answers
 * the case correctly, drives it with autocannon, reads its CPU time and RSS over IPC, stops it, and prints one
 * table with the ratios the performance goals name. `BENCH_SMOKE=1` runs each case for a quarter of a second, so
 * CI keeps the harness working; it exits non-zero if any server answered wrongly or failed requests.
 */
const SMOKE = process.env.BENCH_SMOKE === '1';
// Smoke mode checks answers, not figures: a quarter of a second of load is thousands of requests per case.
const SECONDS = SMOKE ? 0.25 : Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = SMOKE ? 0 : 1;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
// On a shared machine one run of a server can be 20-40 % off the next: with several rounds, every server and case
// runs once per round, interleaved, and each figure is the median of its rounds.
const ROUNDS = SMOKE ? 1 : Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
// Narrow a run while investigating: BENCH_ONLY=mcp-fastify,nest-fastify BENCH_CASES=call,list-1000.
const ONLY = process.env.BENCH_ONLY?.split(',');
const ONLY_CASES = process.env.BENCH_CASES?.split(',');
// Or only some of the sections measured by the OS's CPU accounting and the sessions' heap:
// BENCH_SECTIONS=os-cpu,argument-shape,sessions.
const SECTIONS = process.env.BENCH_SECTIONS?.split(',');
// The decorated servers, with and without McpThrottlerGuard, are measured in the whole-process CPU section, beside
// the bare routes, not in the table.
const SECTION_SERVERS: readonly ServerName[] = [
  'mcp-fastify-decorated',
  'mcp-express-decorated',
  'mcp-fastify-throttled',
  'mcp-express-throttled',
];
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

interface Row {
  server: ServerName;
  benchCase: BenchCase;
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  rssWarmMb: number;
  rssEndMb: number;
  heapWarmMb: number;
  heapEndMb: number;
  /** Bytes allocated, and promoted to the old generation by scavenges, per request: figures load cannot move. */
  allocatedPerRequest: number;
  promotedPerRequest: number;
  failed: string | null;
}

interface Started {
  child: ChildProcess;
  port: number;
}

/** The arguments a case's server process starts with: cases with the same ones can share a process. */
function childArgs(benchCase: BenchCase): string[] {
  return [
    String(benchCase.tools),
    ...(benchCase.paged ? ['paged'] : []),
    ...(benchCase.legacy ? ['legacy'] : []),
    ...(benchCase.stateful ? ['stateful'] : []),
  ];
}

function usage(child: ChildProcess): Promise<ChildUsage> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as ChildUsage));
    child.send('usage');
  });
}

/** The session a `stateful` case runs in: one `initialize`, as a 2025-era client opens it. */
async function openSession(port: number, benchCase: BenchCase): Promise<string | undefined> {
  if (!benchCase.stateful) return undefined;
  const params = {
    protocolVersion: LEGACY_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  };
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: requestHeaders(benchCase),
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params }),
  });
  await res.text();
  return res.headers.get('mcp-session-id') ?? undefined;
}

/** One request outside the load run: a server that answers wrongly must not get a figure. */
async function verify(port: number, benchCase: BenchCase, sessionId?: string): Promise<string | null> {
  if (benchCase.stateful && !sessionId) return 'initialize minted no session';
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: requestHeaders(benchCase, sessionId),
    body: requestBody(benchCase),
  });
  const text = await res.text();
  if (res.status !== 200) return `HTTP ${res.status}: ${text.slice(0, 200)}`;
  if (benchCase.sse) {
    const frames = text.split('\n\n').filter((f) => f.includes('data: '));
    const progress = frames.filter((f) => f.includes('notifications/progress')).length;
    return progress === 3 && frames.length === 4 && frames[3].includes('"done"')
      ? null
      : `unexpected SSE stream: ${text.slice(0, 300)}`;
  }
  if (benchCase.legacy) {
    // A 2025 answer may come as JSON or as one SSE frame (the SDK's legacy leg always streams), never in the 2026 shape.
    const message = JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null'));
    return message?.result?.content?.[0]?.text === '5' && message.result.resultType === undefined
      ? null
      : `unexpected 2025 answer: ${text.slice(0, 200)}`;
  }
  const body = JSON.parse(text);
  if (benchCase.method === 'tools/list') {
    const expected = benchCase.paged ? 100 : benchCase.tools;
    if (body.result?.tools?.length !== expected)
      return `listed ${body.result?.tools?.length} tools, expected ${expected}`;
    return benchCase.paged && typeof body.result.nextCursor !== 'string' ? 'a first page without nextCursor' : null;
  }
  return body.result?.content?.[0]?.text === (benchCase.expect ?? '5')
    ? null
    : `unexpected result: ${text.slice(0, 200)}`;
}

function cannon(port: number, benchCase: BenchCase, seconds: number, sessionId?: string): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}/mcp`,
    method: 'POST',
    headers: requestHeaders(benchCase, sessionId),
    body: requestBody(benchCase),
    connections: CONNECTIONS,
    duration: seconds,
  });
}

async function runCase(server: ServerName, benchCase: BenchCase, shared?: Started): Promise<Row> {
  const row: Row = {
    server,
    benchCase,
    rps: 0,
    p50: 0,
    p99: 0,
    cpuUsPerRequest: 0,
    rssWarmMb: 0,
    rssEndMb: 0,
    heapWarmMb: 0,
    heapEndMb: 0,
    allocatedPerRequest: 0,
    promotedPerRequest: 0,
    failed: null,
  };
  const { child, port } = shared ?? (await startServerChild(server, childArgs(benchCase)));
  try {
    const sessionId = await openSession(port, benchCase);
    row.failed = await verify(port, benchCase, sessionId);
    if (row.failed) return row;
    if (WARMUP_SECONDS > 0) await cannon(port, benchCase, WARMUP_SECONDS, sessionId);
    const before = await usage(child);
    const result = await cannon(port, benchCase, SECONDS, sessionId);
    const after = await usage(child);
    const answered = result.requests.total;
    row.rps = answered / (result.duration || SECONDS);
    row.p50 = result.latency.p50;
    row.p99 = result.latency.p99;
    row.cpuUsPerRequest =
      (after.cpu.user + after.cpu.system - before.cpuAfterGc.user - before.cpuAfterGc.system) / Math.max(answered, 1);
    row.rssWarmMb = before.rss / 2 ** 20;
    row.rssEndMb = after.rss / 2 ** 20;
    row.heapWarmMb = before.heapAfterGc / 2 ** 20;
    row.heapEndMb = after.heapAfterGc / 2 ** 20;
    row.allocatedPerRequest = after.gc.allocatedBytes / Math.max(answered, 1);
    row.promotedPerRequest = after.gc.promotedBytes / Math.max(answered, 1);
    if (result.non2xx > 0 || result.errors > 0 || answered === 0) {
      row.failed = `${result.non2xx} non-2xx, ${result.errors} errors of ${answered}`;
    }
    return row;
  } finally {
    if (!shared) await stopServerChild(child);
  }
}

function measureStartup(tools: number): Promise<number> {
  const child = fork(here('./startup.js'), [String(tools)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve((message as { bootMs: number }).bootMs));
    child.once('exit', (code) => code !== 0 && reject(new Error(`start-up probe exited with ${code}`)));
  });
}

/** Each figure the median of its rounds; a row that failed in any round is reported as failed. */
function medianRow(runs: Row[]): Row {
  const failed = runs.find((r) => r.failed);
  if (failed || runs.length === 1) return failed ?? runs[0];
  const of = (
    field:
      | 'rps'
      | 'p50'
      | 'p99'
      | 'cpuUsPerRequest'
      | 'rssWarmMb'
      | 'rssEndMb'
      | 'heapWarmMb'
      | 'heapEndMb'
      | 'allocatedPerRequest'
      | 'promotedPerRequest',
  ) => median(runs.map((r) => r[field]));
  return {
    ...runs[0],
    rps: of('rps'),
    p50: of('p50'),
    p99: of('p99'),
    cpuUsPerRequest: of('cpuUsPerRequest'),
    rssWarmMb: of('rssWarmMb'),
    rssEndMb: of('rssEndMb'),
    heapWarmMb: of('heapWarmMb'),
    heapEndMb: of('heapEndMb'),
    allocatedPerRequest: of('allocatedPerRequest'),
    promotedPerRequest: of('promotedPerRequest'),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * The sections read from the OS and the heap: whole-process CPU per request for `@Tool`, `registerTool` and the
 * bare route; an argument's shape; sessions over time. Three alternating rounds outside smoke mode, unless
 * BENCH_ROUNDS says otherwise.
 */
async function measureSections(): Promise<string[]> {
  const rounds = SMOKE ? 1 : Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const wanted = (name: string) => !SECTIONS || SECTIONS.includes(name);
  const failures: string[] = [];
  if (wanted('os-cpu')) {
    const figures = await measureOsCpu({
      smoke: SMOKE,
      // Short windows, many of them: a window's ratio moves with the machine, and the median of many steadies.
      rounds: SMOKE ? 1 : Math.max(1, Number(process.env.BENCH_CPU_ROUNDS ?? 5)),
      requests: SMOKE ? 2_000 : Number(process.env.BENCH_CPU_REQUESTS ?? 20_000),
      connections: CONNECTIONS,
      only: ONLY,
    });
    printOsCpu(figures, fmt);
    failures.push(...figures.failures);
  }
  if (wanted('argument-shape')) {
    const figures = await measureArgumentShape(SMOKE, rounds);
    printArgumentShape(figures, fmt);
    failures.push(...figures.failures);
  }
  if (wanted('sessions')) printSessionMemory(await measureSessionMemory(SMOKE), fmt);
  return failures;
}

async function main(): Promise<void> {
  const servers = (Object.keys(SERVERS) as ServerName[]).filter(
    (s) => (!ONLY || ONLY.includes(s)) && !SECTION_SERVERS.includes(s),
  );
  console.log(
    `nestjs-mcp benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `autocannon ${CONNECTIONS} connections, ${SECONDS} s per case after ${WARMUP_SECONDS} s warm-up` +
      `${ROUNDS > 1 ? `, median of ${ROUNDS} interleaved rounds` : ''}${SMOKE ? ' (smoke mode)' : ''}\n`,
  );
  if (SECTIONS) {
    const failures = await measureSections();
    if (failures.length > 0) {
      console.error(`\n${failures.length} section run(s) failed: ${failures.join('; ')}`);
      process.exitCode = 1;
    }
    return;
  }
  const rounds: Row[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const rows: Row[] = [];
    for (const server of servers) {
      const runs = (c: BenchCase) =>
        (!c.paged || PAGING_SERVERS.includes(server)) &&
        (!c.legacy || LEGACY_SERVERS.includes(server)) &&
        (c.servers?.includes(server) ?? true) &&
        (SERVER_CASES[server]?.includes(c.id) ?? true);
      // Smoke mode checks answers, not figures: the cases a server starts with the same arguments share one
      // process, where a measured run gives each case a fresh one.
      const reused = new Map<string, Started>();
      try {
        for (const benchCase of CASES.filter((c) => (!ONLY_CASES || ONLY_CASES.includes(c.id)) && runs(c))) {
          process.stderr.write(`  ${ROUNDS > 1 ? `round ${round}: ` : ''}${server} / ${benchCase.id} ... `);
          const key = childArgs(benchCase).join(' ');
          if (SMOKE && !reused.has(key)) reused.set(key, await startServerChild(server, childArgs(benchCase)));
          const row = await runCase(server, benchCase, reused.get(key));
          process.stderr.write(row.failed ? `FAILED: ${row.failed}\n` : `${fmt(row.rps)} req/s\n`);
          rows.push(row);
        }
      } finally {
        for (const { child } of reused.values()) await stopServerChild(child);
      }
    }
    rounds.push(rows);
  }
  const rows = rounds[0].map((_, i) => medianRow(rounds.map((rows) => rows[i])));

  console.log(
    '| server | case | req/s | p50 ms | p99 ms | CPU µs/req | allocated KB/req | promoted B/req | RSS MB (warm → end) | heap after GC MB (warm → end) |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const figures = r.failed
      ? `FAILED: ${r.failed.replace(/\|/g, '/')} | | | | | | | `
      : `${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${fmt(r.cpuUsPerRequest)} | ${fmt(r.allocatedPerRequest / 1024, 1)} | ${fmt(r.promotedPerRequest)} | ${fmt(r.rssWarmMb)} → ${fmt(r.rssEndMb)} | ${fmt(r.heapWarmMb, 1)} → ${fmt(r.heapEndMb, 1)}`;
    console.log(`| ${SERVERS[r.server]} | ${r.benchCase.label} | ${figures} |`);
  }

  const find = (server: ServerName, id: string) =>
    rows.find((r) => r.server === server && r.benchCase.id === id && !r.failed);
  // Each throughput goal is shown twice: by req/s, and by CPU per request (the inverse ratio), which moves far
  // less when other processes share the cores.
  // Without a threshold the ratio is information, not a goal.
  const verdict = (x: number | undefined, threshold: number | undefined, atMost = false) =>
    x === undefined
      ? 'n/a'
      : threshold === undefined
        ? fmt(x, 2)
        : `${fmt(x, 2)} (${(atMost ? x <= threshold : x >= threshold) ? 'met' : 'not met'})`;
  const speed = (
    label: string,
    goal: string,
    threshold: number | undefined,
    mine: Row | undefined,
    theirs: Row | undefined,
  ) => {
    if (!mine || !theirs) return;
    console.log(
      `| ${label} | ${verdict(mine.rps / theirs.rps, threshold)} | ${verdict(theirs.cpuUsPerRequest / mine.cpuUsPerRequest, threshold)} | ${goal} |`,
    );
  };
  console.log('\n| ratio | by req/s | by CPU µs/req | goal |');
  console.log('|---|---:|---:|---|');
  speed(
    'Fastify: MCP tools/call vs bare Nest+Fastify',
    '≥ 0.87 (≤ 1.15× the CPU)',
    0.87,
    find('mcp-fastify', 'call'),
    find('nest-fastify', 'call'),
  );
  speed(
    'Fastify: MCP tools/call vs SDK createMcpHandler',
    '≥ 10',
    10,
    find('mcp-fastify', 'call'),
    find('sdk', 'call'),
  );
  speed(
    'Express: MCP tools/call vs SDK createMcpHandler',
    '≥ 10',
    10,
    find('mcp-express', 'call'),
    find('sdk', 'call'),
  );
  speed(
    'Express: MCP tools/call vs bare Nest+Express',
    '≥ 0.95 (≤ 1.05× the CPU)',
    0.95,
    find('mcp-express', 'call'),
    find('nest-express', 'call'),
  );
  for (const [server, bare, name] of [
    ['mcp-fastify', 'nest-fastify', 'Fastify'],
    ['mcp-express', 'nest-express', 'Express'],
  ] as const) {
    speed(
      `${name}: MCP tools/call with a 1 MB argument vs bare Nest route, same body`,
      '≥ 0.91 (≤ 1.10× the CPU)',
      0.91,
      find(server, 'call-1mb'),
      find(bare, 'call-1mb'),
    );
  }
  speed(
    'Express, both on PrototypeExpressAdapter: MCP tools/call vs bare',
    '≥ 0.95',
    0.95,
    find('mcp-express-prototype', 'call'),
    find('nest-express-prototype', 'call'),
  );
  speed(
    'Express: MCP on PrototypeExpressAdapter vs MCP on the default adapter',
    'no goal',
    undefined,
    find('mcp-express-prototype', 'call'),
    find('mcp-express', 'call'),
  );
  speed(
    'Fastify: MCP tools/call vs @rekog/mcp-nest (Fastify)',
    '≥ 10',
    10,
    find('mcp-fastify', 'call'),
    find('rekog-fastify', 'call'),
  );
  speed(
    'Fastify: MCP tools/call with the Redis backends vs without (the call needs none of them)',
    '≥ 0.95',
    0.95,
    find('mcp-fastify-redis', 'call'),
    find('mcp-fastify', 'call'),
  );
  speed(
    'Fastify: MCP tools/call with a UI resource and a route tool configured vs without',
    '≥ 0.95',
    0.95,
    find('mcp-fastify-features', 'call'),
    find('mcp-fastify', 'call'),
  );
  speed(
    'Express: MCP tools/call vs @rekog/mcp-nest (Express)',
    '≥ 10',
    10,
    find('mcp-express', 'call'),
    find('rekog-express', 'call'),
  );
  // On Nest's default Express adapter, Express's own per-request prototype swap bounds any library (the bare route
  // alone costs a fifth of the SDK's call); the adapter this package ships for it shows what the MCP layer allows.
  speed(
    'Express, PrototypeExpressAdapter: MCP tools/call vs SDK createMcpHandler',
    '≥ 10',
    10,
    find('mcp-express-prototype', 'call'),
    find('sdk', 'call'),
  );
  speed(
    'Express, PrototypeExpressAdapter: MCP tools/call vs @rekog/mcp-nest (Express)',
    '≥ 10',
    10,
    find('mcp-express-prototype', 'call'),
    find('rekog-express', 'call'),
  );
  // The peers' 2026 rows run with their legacy leg off, so their ratio also carries what the dual-era routing costs.
  for (const [server, name, goal] of [
    ['mcp-fastify', 'Fastify: MCP', 0.95],
    ['mcp-express', 'Express: MCP', 0.95],
    ['sdk', 'SDK createMcpHandler (legacy: stateless)', undefined],
    ['rekog-fastify', '@rekog/mcp-nest (Fastify, protocol: dual)', undefined],
    ['rekog-express', '@rekog/mcp-nest (Express, protocol: dual)', undefined],
  ] as const) {
    speed(
      `${name} 2025 tools/call vs 2026 tools/call`,
      goal === undefined ? 'no goal' : `≥ ${goal}`,
      goal,
      find(server, 'call-2025'),
      find(server, 'call'),
    );
  }
  for (const [server, name] of [
    ['mcp-fastify', 'Fastify'],
    ['mcp-express', 'Express'],
  ] as const) {
    // Each call of a session reads (and renews) it in the store: what that costs against the stateless leg.
    speed(
      `${name}: MCP 2025 tools/call in a session (legacy.mode 'stateful', in-memory store) vs stateless`,
      'no goal',
      undefined,
      find(server, 'call-2025-stateful'),
      find(server, 'call-2025'),
    );
    speed(
      `${name}: MCP tools/list (1,000 tools, default pages of 100) vs its tools/call`,
      '≥ 0.5',
      0.5,
      find(server, 'list-1000-paged'),
      find(server, 'call'),
    );
    speed(
      `${name}: MCP tools/list (1,000 tools in one page) vs its tools/call`,
      '≥ 0.5',
      0.5,
      find(server, 'list-1000'),
      find(server, 'call'),
    );
    speed(
      `${name}: MCP tools/call with 1,000 tools vs with 5`,
      '≥ 0.9',
      0.9,
      find(server, 'call-1000'),
      find(server, 'call'),
    );
    const mine = find(server, 'call');
    const bare = find(server === 'mcp-fastify' ? 'nest-fastify' : 'nest-express', 'call');
    if (mine && bare) {
      console.log(
        `| ${name}: MCP RSS ÷ bare Nest RSS (tools/call, end of run) | ${verdict(mine.rssEndMb / bare.rssEndMb, 1.2, true)} | | ≤ 1.2 |`,
      );
      // Load cannot move these two: a change that allocates more per call, or keeps its objects past a scavenge,
      // shows here even when the CPU figures are lost in a busy machine's noise.
      console.log(
        `| ${name}: MCP bytes allocated per tools/call ÷ bare Nest route | ${fmt(mine.allocatedPerRequest / bare.allocatedPerRequest, 2)} | | no goal |`,
      );
      console.log(
        `| ${name}: bytes promoted per tools/call, MCP; bare Nest route | ${fmt(mine.promotedPerRequest)}; ${fmt(bare.promotedPerRequest)} | | no goal |`,
      );
    }
  }

  const sectionFailures = await measureSections();

  const kernel = await measureKernel(SMOKE);
  console.log(
    `\nIn-process kernel: handleRequest(tools/call add, validated {a, b}) median ${fmt(kernel.medianUs, 2)} µs over ${fmt(kernel.samples)} runs (goal ≤ 5 µs: ${kernel.medianUs <= 5 ? 'met' : 'not met'})`,
  );

  printStdioCalls(await measureStdioCalls(SMOKE), fmt);

  const overHttp = await measureHttpTasks(SMOKE);
  console.log(
    `Task round trip over HTTP on Nest + Fastify (tools/call answered with a task, then tasks/get until completed; ` +
      `the plain call of the same tool beside it), one request at a time: ${fmt(overHttp.task, 2)} ms vs ${fmt(overHttp.plain, 2)} ms ` +
      `(${fmt(overHttp.task / overHttp.plain, 1)}×, ${fmt(overHttp.gets, 2)} gets)`,
  );
  console.log(
    `The same call from a client that declares the tasks extension, answered with its result in place of a task ` +
      `(the immediate-result shortcut), over HTTP: ${fmt(overHttp.shortcut, 2)} ms vs ${fmt(overHttp.plain, 2)} ms ` +
      `(${fmt(overHttp.shortcut / overHttp.plain, 2)}×)`,
  );
  // The in-process round trips, on both stores, are rows of the tasks-on-a-queue section.
  try {
    printTasksQueue(await measureTasksQueue(SMOKE), fmt);
  } catch (error) {
    sectionFailures.push(`tasks on BullMQ: ${(error as Error).message}`);
  }

  printEvents(await measureEvents(SMOKE), fmt);
  printListPages(await measureListPages(SMOKE), fmt);
  printTaskBytes(await measureTaskBytes(SMOKE), fmt);
  printPlaygroundWeight(await measurePlaygroundWeight(), fmt);
  printPlaygroundRender(await measurePlaygroundRender(SMOKE), fmt);

  console.log(
    '\nRoute tools (GET /orders/:id with ParseIntPipe and a query key: as a route tool over /mcp, the same route ' +
      'over HTTP, and a plain @Tool doing the same work over /mcp; one request at a time, interleaved, the fetch ' +
      'client in the bench process, whose CPU time per request is shown):\n',
  );
  console.log(
    '| adapter | route tool ms (CPU µs) | route over HTTP ms (CPU µs) | plain @Tool ms (CPU µs) | route tool − plain @Tool CPU µs |',
  );
  console.log('|---|---:|---:|---:|---:|');
  for (const adapter of ['express', 'fastify'] as const) {
    const r = await measureRouteTools(adapter, SMOKE);
    console.log(
      `| ${adapter} | ${fmt(r.routeToolMs, 3)} (${fmt(r.routeToolCpuUs)}) | ${fmt(r.httpRouteMs, 3)} (${fmt(r.httpRouteCpuUs)}) | ` +
        `${fmt(r.plainToolMs, 3)} (${fmt(r.plainToolCpuUs)}) | ${fmt(r.routeToolCpuUs - r.plainToolCpuUs)} |`,
    );
  }

  const mounted = await measureGateway(SMOKE);
  console.log(
    `\nGateway (Nest + Fastify, a tools/call through a gateway mounting a server of this library, against the same ` +
      `call made to that server directly; one request at a time, interleaved, client, gateway and upstream in the bench process): ` +
      `mounted ${fmt(mounted.mountedMs, 3)} ms (CPU ${fmt(mounted.mountedCpuUs)} µs), direct ${fmt(mounted.directMs, 3)} ms ` +
      `(CPU ${fmt(mounted.directCpuUs)} µs): ×${fmt(mounted.mountedMs / mounted.directMs, 2)} by time, ` +
      `×${fmt(mounted.mountedCpuUs / mounted.directCpuUs, 2)} by CPU`,
  );

  const inputRounds = await measureInputRounds(SMOKE);
  console.log(
    `\nInput rounds across instances (Nest + Fastify, one process per instance; one instance without Redis vs two ` +
      `sharing Redis with the client's answer sent to the other one; clients in the bench process, each one round trip after the other):\n`,
  );
  console.log(
    '| input round | set-up | 16 clients: round trips/s | p50 ms | p99 ms | 1 client: round trips/s | p50 ms | p99 ms |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const { label, one, across } of inputRounds) {
    for (const [setUp, { loaded, alone }] of [
      ['one instance', one],
      ['across two, Redis', across],
    ] as const) {
      console.log(
        `| ${label} | ${setUp} | ${fmt(loaded.rps)} | ${fmt(loaded.p50, 1)} | ${fmt(loaded.p99, 1)} | ${fmt(alone.rps)} | ${fmt(alone.p50, 2)} | ${fmt(alone.p99, 2)} |`,
      );
    }
  }
  console.log('');

  const runs = SMOKE ? 1 : 3;
  const bare: number[] = [];
  const loaded: number[] = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await measureStartup(0));
    loaded.push(await measureStartup(1000));
  }
  const extra = median(loaded) - median(bare);
  console.log(
    `Start-up (Nest + Express, create + init, median of ${runs}): no tools ${fmt(median(bare))} ms, 1,000 tools via registerTool ${fmt(median(loaded))} ms: ` +
      `+${fmt(extra)} ms (goal ≤ 1,000 ms more: ${extra <= 1000 ? 'met' : 'not met'})`,
  );

  const stdioRuns = SMOKE ? 1 : 7;
  const stdio = await measureStdioStartup(stdioRuns);
  const stdioRatio = stdio['mcp-context'].cpuMs / stdio.bare.cpuMs;
  const cpu = (kind: keyof typeof stdio) => `${fmt(stdio[kind].cpuMs)} CPU ms (${fmt(stdio[kind].ms)} ms)`;
  console.log(
    `stdio start-up (spawn to the first answer on stdout, median of ${stdioRuns}; the server's CPU ms, then wall-clock ms): ` +
      `nestjs-mcp bootstrapStdio (the built package) ${cpu('mcp-context')}, the basic example with the HTTP adapter of its route tool ${cpu('mcp')}, ` +
      `bare Nest createApplicationContext ${cpu('bare')}, bare Nest create + init with the same route ${cpu('bare-http')}, ` +
      `SDK serveStdio ${cpu('sdk')}: ` +
      `×${fmt(stdioRatio, 2)} the bare context by CPU (goal ≤ 1.25: ${stdioRatio <= 1.25 ? 'met' : 'not met'}), ` +
      `×${fmt(stdio.mcp.cpuMs / stdio['bare-http'].cpuMs, 2)} the bare HTTP application with the route tool`,
  );

  const failures = rows.filter((r) => r.failed);
  if (failures.length > 0) {
    console.error(
      `\n${failures.length} case(s) failed: ${failures.map((r) => `${r.server}/${r.benchCase.id}`).join(', ')}`,
    );
    process.exitCode = 1;
  }
  if (sectionFailures.length > 0) {
    console.error(`\n${sectionFailures.length} section run(s) failed: ${sectionFailures.join('; ')}`);
    process.exitCode = 1;
  }
}

await main();
