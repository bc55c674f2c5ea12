import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CASES,
  exchange,
  requestBody,
  requestHeaders,
  SERVERS,
  shapeCase,
  type BenchCase,
  type ServerName,
} from './fixtures.js';

/**
 * A gauge a busy machine cannot fool: each server runs under callgrind, the counters are zeroed after a warm-up
 * and a full garbage collection, and the main thread's instructions for a fixed number of requests are read from
 * the dump. Wall-clock rows move 20-40 % between runs on a shared machine; instructions per request repeat within
 * a few per cent, so their ratio shows a regression. Two modes, each run by default:
 *
 * - `jitless`: `node --jitless`, so the instruction stream does not depend on when the JIT compiles what, and a
 *   young generation large enough that no collection runs inside a window of small calls: the library's own
 *   code, interpreted, with nothing else in the count.
 * - `jit`: Node with its optimizing compiler, and its young generation at the size it reaches under load, after a
 *   warm-up long enough for the hot path to be compiled; each window holds several scavenges. This is the mode
 *   that sees what the other hides by design: an object kept past a scavenge (promoted, then only freed by a
 *   full collection) or code the optimizer gives up on.
 *
 * `node build/bench/instructions.js [requests]` (default 300 jitless, 2,000 jit; INSTRUCTIONS_SMOKE=1 runs 20).
 * Narrow a run with INSTRUCTIONS_MODES=jit, INSTRUCTIONS_ONLY=mcp-fastify,nest-fastify and
 * INSTRUCTIONS_CASES=call,call-1mb,shape-100k.
 */
interface Mode {
  name: 'jitless' | 'jit';
  nodeFlags: string[];
  requests: number;
  warmUp: number;
}

const SMOKE = process.env.INSTRUCTIONS_SMOKE === '1';
const REQUESTS = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
const MODES: Mode[] = (
  [
    {
      name: 'jitless',
      // The young generation holds what a window of small calls allocates: after the collection before the
      // window, none runs inside it, and the count is the server's own work.
      nodeFlags: ['--jitless', '--min-semi-space-size=64', '--max-semi-space-size=64'],
      requests: REQUESTS ?? (SMOKE ? 20 : 300),
      warmUp: Math.max(10, Math.round((REQUESTS ?? (SMOKE ? 20 : 300)) / 5)),
    },
    {
      name: 'jit',
      // The young generation at the size V8 grows it to under load. Left to itself, V8 sizes it by the allocation
      // rate per millisecond, which under callgrind (tens of times slower) would shrink it and count several
      // times the scavenges a request causes in production, more or fewer as the machine is busier.
      nodeFlags: ['--min-semi-space-size=16', '--max-semi-space-size=16'],
      requests: REQUESTS ?? (SMOKE ? 20 : 2_000),
      // TurboFan compiles a function after thousands of calls; fewer, and the window would count the interpreter.
      warmUp: SMOKE ? 20 : 3_000,
    },
  ] satisfies Mode[]
).filter((mode) => (process.env.INSTRUCTIONS_MODES?.split(',') ?? ['jitless', 'jit']).includes(mode.name));
const call = CASES.find((c) => c.id === 'call')!;
const legacyCall = CASES.find((c) => c.id === 'call-2025')!;
const bigCall = CASES.find((c) => c.id === 'call-1mb')!;
const shapes = [shapeCase(1_000), shapeCase(10_000), shapeCase(100_000)];
const ONLY = process.env.INSTRUCTIONS_ONLY?.split(',');
const ONLY_CASES = process.env.INSTRUCTIONS_CASES?.split(',');

interface Row {
  server: ServerName;
  benchCase: BenchCase;
  perRequest: number;
  /**
   * With INSTRUCTIONS_CACHE=1: simulated misses per request (first-level instruction and data, last level) and
   * mispredicted branches (conditional and indirect).
   */
  misses?: { l1i: number; l1d: number; ll: number; branches: number };
}

/**
 * INSTRUCTIONS_CACHE=1 adds callgrind's cache and branch-predictor simulators: the misses and mispredictions per
 * request that an instruction count does not show and that `perf stat` would count on hardware that exposes its
 * counters. Simulated for a generic cache
 * (valgrind's model of the host's), so compare ratios between servers, not absolute figures with hardware.
 */
const CACHE_SIM = process.env.INSTRUCTIONS_CACHE === '1';

function startUnderCallgrind(
  server: ServerName,
  mode: Mode,
  outFile: string,
): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(new URL('./server-child.js', import.meta.url)), [server, '5', 'legacy', 'shape'], {
    execPath: 'valgrind',
    execArgv: [
      '--tool=callgrind',
      '--smc-check=all',
      `--callgrind-out-file=${outFile}`,
      // Not instrumented until the warm-up: a start under full instrumentation takes many minutes on a busy machine.
      '--instr-atstart=no',
      // A dump per thread, so the main thread's work is read apart from V8's helper threads (see below).
      '--separate-threads=yes',
      ...(CACHE_SIM ? ['--cache-sim=yes', '--branch-sim=yes'] : []),
      process.execPath,
      ...mode.nodeFlags,
      '--expose-gc',
    ],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${server} did not start under valgrind within 30 min`)),
      1_800_000,
    );
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve({ child, port: (message as { port: number }).port });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${server} exited under callgrind (code ${code}): ${stderr}`));
    });
  });
}

async function post(port: number, agent: Agent, benchCase: BenchCase): Promise<string> {
  const { status, text } = await exchange(port, agent, 'POST', requestHeaders(benchCase), requestBody(benchCase));
  if (status !== 200) throw new Error(`${status}: ${text}`);
  return text;
}

/**
 * INSTRUCTIONS_CONNECTIONS=32 sends the requests over that many keep-alive connections at once, as the OS-CPU
 * section's load does: a server then handles several requests per turn of its event loop, which one request at a
 * time never shows. The count stays a property of the code and the load, not of the machine.
 */
const CONNECTIONS = Math.max(1, Number(process.env.INSTRUCTIONS_CONNECTIONS ?? 1));

async function sendAll(port: number, agent: Agent, benchCase: BenchCase, count: number): Promise<void> {
  const lanes = Math.min(CONNECTIONS, count);
  await Promise.all(
    Array.from({ length: lanes }, (_, lane) =>
      sendSerially(port, agent, benchCase, Math.floor(count / lanes) + (lane < count % lanes ? 1 : 0)),
    ),
  );
}

async function sendSerially(port: number, agent: Agent, benchCase: BenchCase, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const text = await post(port, agent, benchCase);
    // A server that answers something else (an error, another sum) is measuring other work.
    if (!text.includes(`"text":"${benchCase.expect ?? '5'}"`))
      throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
  }
}

/**
 * Instructions of the main thread's last dump: callgrind writes `summary:` (or `totals:`) with the event count,
 * a file per thread (`<base>.<dump>-<thread>`), the main thread first. V8's helper threads (the concurrent
 * sweeper and marker) run when the OS schedules them, so whether their work falls inside a window is chance,
 * up to tens of thousands of instructions per request; the main thread's count, its own scavenges included, is
 * what the requests did.
 */
function dumpedEvents(dir: string, base: string): Map<string, number> {
  const dumpOf = (file: string) => Number(file.slice(base.length + 1, -'-01'.length));
  const dumps = readdirSync(dir)
    .filter((file) => file.startsWith(`${base}.`) && file.endsWith('-01') && Number.isInteger(dumpOf(file)))
    .sort((a, b) => dumpOf(a) - dumpOf(b));
  const last = dumps[dumps.length - 1];
  if (last === undefined) throw new Error(`no main-thread dump of ${base} in ${dir}`);
  const text = readFileSync(join(dir, last), 'utf8');
  const names = /^events: (.+)$/m.exec(text)?.[1].trim().split(/\s+/);
  const line = /^(?:summary|totals): ([\d ]+)$/m.exec(text);
  if (!names || !line) throw new Error(`no event totals in ${last}`);
  const counts = line[1].trim().split(/\s+/).map(Number);
  return new Map(names.map((name, i) => [name, counts[i] ?? 0]));
}

/**
 * A full collection in the server before each measured window (`collect`). A major collection
 * costs V8 more instructions than hundreds of requests: at a fixed request count, whether one falls inside a
 * case's window would otherwise swing a ratio by half. The collections a window does cause (the 1 MB case's)
 * stay in its count.
 */
function collectGarbage(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('message', () => resolve());
    child.send('collect');
  });
}

/**
 * The 1 MB case's requests take a second or more each under callgrind: it counts at most 300 after at most 60,
 * and comes after its server's small calls, so in the `jit` mode the path it shares with them is compiled.
 */
function requestsOf(mode: Mode, benchCase: BenchCase): { warmUp: number; requests: number } {
  if (benchCase === bigCall) return { warmUp: Math.min(mode.warmUp, 60), requests: Math.min(mode.requests, 300) };
  // The argument-shape cases, by their members: a 100,000-member request costs what 300 small calls do.
  const shape = shapes.indexOf(benchCase);
  if (shape >= 0) {
    const scale = 10 ** shape;
    return {
      warmUp: Math.max(3, Math.ceil(mode.warmUp / 10 / scale)),
      requests: Math.max(10, Math.ceil(mode.requests / 5 / scale)),
    };
  }
  return { warmUp: mode.warmUp, requests: mode.requests };
}

async function measure(server: ServerName, mode: Mode, cases: BenchCase[], dir: string): Promise<Row[]> {
  const base = `${server}.${mode.name}.cg`;
  const { child, port } = await startUnderCallgrind(server, mode, join(dir, base));
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const rows: Row[] = [];
  try {
    execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' });
    for (const benchCase of cases) {
      const { warmUp, requests } = requestsOf(mode, benchCase);
      await sendAll(port, agent, benchCase, warmUp);
      await collectGarbage(child);
      execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
      await sendAll(port, agent, benchCase, requests);
      execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
      const events = dumpedEvents(dir, base);
      const per = (...names: string[]) => names.reduce((sum, name) => sum + (events.get(name) ?? 0), 0) / requests;
      rows.push({
        server,
        benchCase,
        perRequest: per('Ir'),
        misses: CACHE_SIM
          ? {
              l1i: per('I1mr'),
              l1d: per('D1mr', 'D1mw'),
              ll: per('ILmr', 'DLmr', 'DLmw'),
              branches: per('Bcm', 'Bim'),
            }
          : undefined,
      });
    }
    return rows;
  } finally {
    agent.destroy();
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

function printRatios(mode: Mode, rows: Row[]): void {
  const per = (server: ServerName, id: string) => rows.find((r) => r.server === server && r.benchCase.id === id);
  const flags = `node ${mode.nodeFlags.join(' ')}`;
  const big = requestsOf(mode, bigCall);
  console.log(
    `\nInstructions per request under callgrind (${mode.name}: ${flags}), ${mode.requests} requests after ` +
      `${mode.warmUp} warm-up (the 1 MB case: ${big.requests} after ${big.warmUp}):`,
  );
  const pairs = [
    ['Fastify: MCP tools/call ÷ bare Nest + Fastify route', per('mcp-fastify', 'call'), per('nest-fastify', 'call')],
    ['Express: MCP tools/call ÷ bare Nest + Express route', per('mcp-express', 'call'), per('nest-express', 'call')],
    [
      'Fastify: MCP tools/call with a 1 MB argument ÷ bare route, same body',
      per('mcp-fastify', 'call-1mb'),
      per('nest-fastify', 'call-1mb'),
    ],
    [
      'Express: MCP tools/call with a 1 MB argument ÷ bare route, same body',
      per('mcp-express', 'call-1mb'),
      per('nest-express', 'call-1mb'),
    ],
    [
      'Fastify: MCP tools/call with a UI resource and a route tool configured ÷ without',
      per('mcp-fastify-features', 'call'),
      per('mcp-fastify', 'call'),
    ],
    [
      'Fastify: 2025-era tools/call ÷ 2026-07-28 tools/call',
      per('mcp-fastify', 'call-2025'),
      per('mcp-fastify', 'call'),
    ],
    ...(['fastify', 'express'] as const).flatMap((adapter) => {
      const name = adapter === 'fastify' ? 'Fastify' : 'Express';
      const decorated = `mcp-${adapter}-decorated` as ServerName;
      const throttled = `mcp-${adapter}-throttled` as ServerName;
      const bare = `nest-${adapter}` as ServerName;
      const checked = `nest-${adapter}-checked` as ServerName;
      return [
        [`${name}: @Tool add ÷ bare Nest route`, per(decorated, 'call'), per(bare, 'call')],
        [`${name}: the protocol's rules by hand ÷ bare Nest route`, per(checked, 'call'), per(bare, 'call')],
        [`${name}: @Tool add ÷ the protocol's rules by hand`, per(decorated, 'call'), per(checked, 'call')],
        [`${name}: @Tool add, 2025-era ÷ 2026-07-28`, per(decorated, 'call-2025'), per(decorated, 'call')],
        [`${name}: @Tool add behind McpThrottlerGuard ÷ @Tool add`, per(throttled, 'call'), per(decorated, 'call')],
        ...shapes.map((c) => [
          `${name}: ${c.label} ÷ bare route, same body`,
          per(`mcp-${adapter}` as ServerName, c.id),
          per(bare, c.id),
        ]),
      ] as Array<[string, Row | undefined, Row | undefined]>;
    }),
  ] as Array<[string, Row | undefined, Row | undefined]>;
  const measured = pairs.filter((pair): pair is [string, Row, Row] => pair[1] !== undefined && pair[2] !== undefined);
  const ratio = (a: number, b: number) => (a / b).toFixed(3);
  if (!CACHE_SIM) {
    console.log('| ratio | value |\n| --- | --- |');
    for (const [label, mine, theirs] of measured)
      console.log(`| ${label} | ${ratio(mine.perRequest, theirs.perRequest)} |`);
    return;
  }
  console.log(
    '| ratio | instructions | L1i misses | L1d misses | last-level misses | mispredicted branches |\n| --- | --- | --- | --- | --- | --- |',
  );
  for (const [label, mine, theirs] of measured) {
    const [a, b] = [mine.misses!, theirs.misses!];
    console.log(
      `| ${label} | ${ratio(mine.perRequest, theirs.perRequest)} | ${ratio(a.l1i, b.l1i)} | ${ratio(a.l1d, b.l1d)} | ${ratio(a.ll, b.ll)} | ${ratio(a.branches, b.branches)} |`,
    );
  }
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-instructions-'));
try {
  // Each server is started once (a start under callgrind takes minutes); its cases are measured one after another.
  const plan = (
    [
      ['nest-fastify', [call, bigCall, ...shapes]],
      ['nest-fastify-checked', [call]],
      ['mcp-fastify', [call, legacyCall, bigCall, ...shapes]],
      ['mcp-fastify-decorated', [call, legacyCall]],
      ['mcp-fastify-throttled', [call]],
      ['mcp-fastify-features', [call]],
      ['nest-express', [call, bigCall, ...shapes]],
      ['nest-express-checked', [call]],
      ['mcp-express', [call, bigCall, ...shapes]],
      ['mcp-express-decorated', [call, legacyCall]],
      ['mcp-express-throttled', [call]],
    ] as Array<[ServerName, BenchCase[]]>
  )
    .filter(([server]) => !ONLY || ONLY.includes(server))
    .map(([server, cases]): [ServerName, BenchCase[]] => [
      server,
      cases.filter((c) => !ONLY_CASES || ONLY_CASES.includes(c.id)),
    ])
    .filter(([, cases]) => cases.length > 0);
  for (const mode of MODES) {
    const rows: Row[] = [];
    for (const [server, cases] of plan) {
      for (const row of await measure(server, mode, cases, dir)) {
        rows.push(row);
        const misses = row.misses
          ? `; misses per request: L1i ${Math.round(row.misses.l1i)}, L1d ${Math.round(row.misses.l1d)}, last level ${Math.round(row.misses.ll)}; mispredicted branches ${Math.round(row.misses.branches)}`
          : '';
        console.log(
          `${mode.name}: ${SERVERS[server]}, ${row.benchCase.label}: ${Math.round(row.perRequest).toLocaleString('en')} instructions per request${misses}`,
        );
      }
    }
    printRatios(mode, rows);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
