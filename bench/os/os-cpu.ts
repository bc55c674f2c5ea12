import autocannon from 'autocannon';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import {
  CASES,
  requestBody,
  requestHeaders,
  SERVERS,
  type BenchCase,
  type ChildUsage,
  type ServerName,
} from '../fixtures.js';
import { medianOf, threadCpuUs, type ThreadCpu } from './proc-cpu.js';
import { startServerChild, stopServerChild } from '../server-process.js';

/**
 * CPU per request as a deployment sees it: the server's whole process (every thread, user + system) from
 * `/proc`, over a fixed number of requests from autocannon, each server in its own process and every answer
 * checked against the first one, byte for byte. Beside the bare Nest route: `add` registered with `registerTool`,
 * and declared as users mostly declare it, a `@Tool` method of a provider (also asked by a 2025-era client), and
 * the same behind `McpThrottlerGuard`; and the bare route behind the rules the protocol asks of every call,
 * written by hand (`servers/checked-dispatch.ts`), which parts the gap into what any conforming server pays and
 * what this library adds. The instruction gauge (`bench:instructions`) counts the same servers' main thread.
 *
 * Four modes, so a reader sees what concurrency costs: one request at a time and 32 at once (BENCH_CONNECTIONS),
 * each with the servers pinned to the last core and the load generator on the others (so neither takes the
 * other's core or caches: on a 2-core machine this narrows a window's scatter several times over), and with
 * nothing pinned, as a deployment runs. One adapter's servers run side by side; in each round every mode's
 * windows alternate between them, so a machine that slows down or speeds up (another tenant, the CPU's clock)
 * weighs on every server and mode of a round alike, and each ratio is the median of the rounds' own ratios. Each
 * window is split by thread (the main thread's user time is what the gauge counts) and carries the server's
 * collections in it (a full collection runs between windows, outside them).
 */
const GROUPS: Array<Array<[ServerName, string]>> = [
  [
    ['nest-fastify', 'call'],
    ['nest-fastify-checked', 'call'],
    ['mcp-fastify', 'call'],
    ['mcp-fastify-decorated', 'call'],
    ['mcp-fastify-decorated', 'call-2025'],
    ['mcp-fastify-throttled', 'call'],
  ],
  [
    ['nest-express', 'call'],
    ['nest-express-checked', 'call'],
    ['mcp-express', 'call'],
    ['mcp-express-decorated', 'call'],
    ['mcp-express-decorated', 'call-2025'],
    ['mcp-express-throttled', 'call'],
  ],
];

/** How the servers and the load share the machine, and how many requests are in flight at once. */
export interface CpuMode {
  /** `pinned-32`, `unpinned-1`: what BENCH_CPU_MODES names. */
  key: string;
  pinned: boolean;
  connections: number;
  /** Requests in each measured window. */
  requests: number;
}

/** One window of one server and case: CPU per request by thread, and what its collections did per request. */
export interface CpuWindow extends ThreadCpu {
  /**
   * The main thread's time in collections, wall clock (V8's own measure): on a busy machine it includes the waits
   * for helper threads that had no core, so read it against the other rows of its mode, not against the CPU.
   */
  gcPauseUs: number;
  /**
   * Bytes allocated per request: what a request costs the collector whatever the young generation's size, where
   * scavenges per 1,000 also follow that size, which V8 grows and shrinks as it goes.
   */
  allocatedBytes: number;
  scavengesPer1k: number;
  promotedBytes: number;
}

export interface OsCpuFigures {
  modes: CpuMode[];
  /** Per mode (`key`), one window per round, by `server/case`. */
  perRound: Map<string, Map<string, CpuWindow[]>>;
  failures: string[];
}

/** The four modes (BENCH_CPU_MODES narrows them); one request at a time gets fewer requests per window. */
export function cpuModes(options: { smoke: boolean; requests: number; connections: number }): CpuMode[] {
  const serial = options.smoke ? 200 : Number(process.env.BENCH_CPU_REQUESTS_SERIAL ?? 8_000);
  const all = [true, false].flatMap((pinned) =>
    [1, options.connections].map((connections) => ({
      key: `${pinned ? 'pinned' : 'unpinned'}-${connections}`,
      pinned,
      connections,
      requests: connections === 1 ? serial : options.requests,
    })),
  );
  const wanted = process.env.BENCH_CPU_MODES?.split(',');
  return all.filter((mode) => !wanted || wanted.includes(mode.key));
}

export async function measureOsCpu(options: {
  smoke: boolean;
  rounds: number;
  /** Requests in each measured window of the concurrent modes (as many again warm each server up first). */
  requests: number;
  connections: number;
  /** Only these servers' rows (BENCH_ONLY), to read one comparison. */
  only?: readonly string[];
}): Promise<OsCpuFigures> {
  // Smoke mode checks answers: one adapter's group, and of the others only what no other check starts.
  const groups = options.smoke
    ? [GROUPS[0], ...GROUPS.slice(1).map((group) => group.filter(([server]) => server.endsWith('throttled')))]
    : GROUPS.map((group) => group.filter(([server]) => !options.only || options.only.includes(server)));
  const modes = cpuModes(options);
  const figures: OsCpuFigures = { modes, perRound: new Map(modes.map((m) => [m.key, new Map()])), failures: [] };
  const pin = pinning();
  try {
    for (const group of groups) if (group.length > 0) await measureGroup(group, options, figures, pin);
  } finally {
    pin?.release(process.pid);
  }
  return figures;
}

interface Pinning {
  server(pid: number): void;
  load(pid: number): void;
  release(pid: number): void;
}

/** The cores the servers and the load generator keep to when pinned, or undefined where they cannot be kept apart. */
function pinning(): Pinning | undefined {
  const cores = availableParallelism();
  if (cores < 2 || process.env.BENCH_PIN === '0') return undefined;
  const set = (list: string, pid: number) =>
    execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', list, String(pid)], { stdio: 'ignore' });
  try {
    set(`0-${cores - 1}`, process.pid);
  } catch {
    return undefined; // no taskset here
  }
  return {
    server: (pid) => set(String(cores - 1), pid),
    load: (pid) => set(`0-${cores - 2}`, pid),
    release: (pid) => set(`0-${cores - 1}`, pid),
  };
}

interface Window {
  key: string;
  child: ChildProcess;
  load: (amount: number, connections: number) => Promise<number>;
}

async function measureGroup(
  group: Array<[ServerName, string]>,
  options: { rounds: number; requests: number; connections: number },
  figures: OsCpuFigures,
  pin: Pinning | undefined,
): Promise<void> {
  const children = new Map<ServerName, { child: ChildProcess; port: number }>();
  try {
    for (const [server] of group) {
      if (!children.has(server)) children.set(server, await startServerChild(server, ['5', 'legacy']));
    }
    const windows: Window[] = [];
    for (const [server, id] of group) {
      const window = await checkedWindow(server, id, children.get(server)!, figures);
      if (!window) continue;
      // Counted in requests, not seconds: on a busy machine a timed warm-up may end before the hot path is
      // compiled, and the compiler's threads would then bill a window's few requests for it.
      await window.load(options.requests, options.connections);
      windows.push(window);
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const mode of figures.modes) {
        place(
          mode,
          pin,
          [...children.values()].map(({ child }) => child.pid!),
        );
        for (const window of windows) {
          const measured = await measureWindow(window, mode);
          const byKey = figures.perRound.get(mode.key)!;
          byKey.set(window.key, [...(byKey.get(window.key) ?? []), measured]);
        }
      }
    }
  } catch (error) {
    figures.failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    for (const { child } of children.values()) await stopServerChild(child);
  }
}

/** Puts the servers and this process (the load generator) where the mode wants them. */
function place(mode: CpuMode, pin: Pinning | undefined, servers: number[]): void {
  if (!pin) return;
  for (const pid of servers) (mode.pinned ? pin.server : pin.release)(pid);
  (mode.pinned ? pin.load : pin.release)(process.pid);
}

/**
 * A server and case whose first answer is right (a `5`), with the load that holds every later answer to that one:
 * a server that answers something else must not get a figure.
 */
async function checkedWindow(
  server: ServerName,
  id: string,
  { child, port }: { child: ChildProcess; port: number },
  figures: OsCpuFigures,
): Promise<Window | undefined> {
  const benchCase = CASES.find((c) => c.id === id)!;
  const key = `${server}/${id}`;
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: requestHeaders(benchCase),
    body: requestBody(benchCase),
  });
  const answer = await res.text();
  if (res.status !== 200 || !answer.includes('"text":"5"')) {
    figures.failures.push(`${key}: a wrong answer`);
    return undefined;
  }
  const load = async (amount: number, connections: number) => {
    const result = await cannon(port, benchCase, amount, connections, answer);
    const wrong = result.non2xx + result.errors + result.mismatches;
    if (wrong > 0 || result.requests.total === 0)
      throw new Error(
        `${key}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.mismatches} other answers of ${result.requests.total}`,
      );
    return result.requests.total;
  };
  return { key, child, load };
}

async function measureWindow({ child, load }: Window, mode: CpuMode): Promise<CpuWindow> {
  await usage(child); // a full collection, outside the window, and the start of the window's GC figures
  const before = threadCpuUs(child.pid!);
  const answered = await load(mode.requests, mode.connections);
  const after = threadCpuUs(child.pid!);
  const { gc } = await usage(child);
  const per = (part: keyof ThreadCpu) => (after[part] - before[part]) / answered;
  return {
    mainUser: per('mainUser'),
    mainSystem: per('mainSystem'),
    others: per('others'),
    gcPauseUs: gc.pauseUs / answered,
    allocatedBytes: gc.allocatedBytes / answered,
    scavengesPer1k: (gc.scavenges * 1000) / answered,
    promotedBytes: gc.promotedBytes / answered,
  };
}

function usage(child: ChildProcess): Promise<ChildUsage> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as ChildUsage));
    child.send('usage');
  });
}

function cannon(port: number, benchCase: BenchCase, amount: number, connections: number, expectBody: string) {
  return autocannon({
    url: `http://127.0.0.1:${port}/mcp`,
    method: 'POST',
    headers: requestHeaders(benchCase),
    body: requestBody(benchCase),
    connections,
    amount,
    expectBody,
  });
}

const total = (cpu: ThreadCpu) => cpu.mainUser + cpu.mainSystem + cpu.others;

/** Each mode's table and ratios, then what concurrency and pinning change, side by side. */
export function printOsCpu(figures: OsCpuFigures, fmt: (n: number, digits?: number) => string): void {
  for (const mode of figures.modes) printMode(mode, figures.perRound.get(mode.key)!, fmt);
  if (figures.modes.length > 1) printAcrossModes(figures, fmt);
}

function modeLabel(mode: CpuMode): string {
  const where = mode.pinned ? 'servers pinned to one core, the load on the others' : 'nothing pinned';
  return `${mode.connections === 1 ? 'one request at a time' : `${mode.connections} connections`}, ${where}`;
}

/**
 * The table of µs per request (the median of the rounds, whole process and by thread, with the collections' share
 * of the main thread), then each ratio as the median of the rounds' ratios with their range.
 */
function printMode(
  mode: CpuMode,
  perRound: Map<string, CpuWindow[]>,
  fmt: (n: number, digits?: number) => string,
): void {
  const rounds = Math.max(0, ...[...perRound.values()].map((v) => v.length));
  console.log(
    `\nCPU per request from the OS (/proc utime + stime), ${modeLabel(mode)}; ${mode.requests.toLocaleString('en')} requests a window, ${rounds} alternating window(s) each:\n`,
  );
  console.log(
    '| server | case | whole process µs/req (range) | main thread, user | main thread, system | other threads | GC pauses, wall µs/req | allocated B/req | scavenges per 1,000 | promoted B/req |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [key, values] of perRound) {
    const [server, id] = key.split('/');
    const label = CASES.find((c) => c.id === id)!.label;
    const totals = values.map(total);
    const median = (part: keyof CpuWindow, digits = 1) => fmt(medianOf(values.map((v) => v[part])), digits);
    console.log(
      `| ${SERVERS[server as ServerName]} | ${label} | ${fmt(medianOf(totals), 1)} (${fmt(Math.min(...totals), 0)}–${fmt(Math.max(...totals), 0)}) | ${median('mainUser')} | ${median('mainSystem')} | ${median('others')} | ${median('gcPauseUs', 2)} | ${median('allocatedBytes', 0)} | ${median('scavengesPer1k', 2)} | ${median('promotedBytes', 0)} |`,
    );
  }
  console.log('\n| CPU ratio | whole process: median of rounds (range) | main thread, user: median | goal |');
  console.log('|---|---:|---:|---|');
  for (const [label, mine, theirs, goal] of RATIOS) {
    const figure = ratioOf(perRound, mine, theirs);
    if (!figure) continue;
    const range =
      figure.whole.length > 1 ? ` (${fmt(Math.min(...figure.whole), 2)}–${fmt(Math.max(...figure.whole), 2)})` : '';
    console.log(
      `| ${label} | ${fmt(medianOf(figure.whole), 2)}${range} | ${fmt(medianOf(figure.user), 2)} | ${goal} |`,
    );
  }
}

/** The ratios each mode prints: label, the row, the row it is held against, the goal. */
const RATIOS: Array<[string, string, string, string]> = (
  [
    ['Fastify', 'nest-fastify', 'mcp-fastify'],
    ['Express', 'nest-express', 'mcp-express'],
  ] as const
).flatMap(([name, bare, mcp]) => {
  const goal = name === 'Fastify' ? '≤ 1.15' : '≤ 1.05';
  return [
    [`${name}: @Tool add ÷ bare Nest route`, `${mcp}-decorated/call`, `${bare}/call`, goal],
    [`${name}: registerTool add ÷ bare Nest route`, `${mcp}/call`, `${bare}/call`, goal],
    [`${name}: the protocol's rules by hand ÷ bare Nest route`, `${bare}-checked/call`, `${bare}/call`, 'no goal'],
    [`${name}: @Tool add ÷ the protocol's rules by hand`, `${mcp}-decorated/call`, `${bare}-checked/call`, 'no goal'],
    [
      `${name}: @Tool add, 2025-era client ÷ 2026-07-28 client`,
      `${mcp}-decorated/call-2025`,
      `${mcp}-decorated/call`,
      '≤ 1.05',
    ],
    [
      `${name}: @Tool add behind McpThrottlerGuard ÷ @Tool add`,
      `${mcp}-throttled/call`,
      `${mcp}-decorated/call`,
      'no goal',
    ],
  ] as Array<[string, string, string, string]>;
});

/** The rounds' own ratios of one row to another, whole process and main thread in user mode. */
function ratioOf(
  perRound: Map<string, CpuWindow[]> | undefined,
  mine: string,
  theirs: string,
): { whole: number[]; user: number[] } | undefined {
  const a = perRound?.get(mine);
  const b = perRound?.get(theirs);
  if (!a || !b) return undefined;
  const each = (of: (cpu: ThreadCpu) => number) => a.map((v, i) => of(v) / of(b[i])).filter((v) => Number.isFinite(v));
  return { whole: each(total), user: each((cpu) => cpu.mainUser) };
}

/**
 * The same figures across the modes: each server's µs per request, and each ratio's median, per mode. Read down a
 * column for a mode, across a row for what concurrency (1 → 32 connections) and sharing the cores (pinned →
 * unpinned) do to one server or one ratio.
 */
function printAcrossModes(figures: OsCpuFigures, fmt: (n: number, digits?: number) => string): void {
  const { modes } = figures;
  const keys = [...new Set(modes.flatMap((mode) => [...figures.perRound.get(mode.key)!.keys()]))];
  const header = `| ${modes.map((mode) => mode.key).join(' | ')} |`;
  const rule = `${modes.map(() => '---:').join('|')}|`;
  console.log('\nWhole-process CPU µs per request (median of rounds), by mode:\n');
  console.log(`| server | case ${header}\n|---|---|${rule}`);
  for (const key of keys) {
    const [server, id] = key.split('/');
    const cells = modes.map((mode) => {
      const values = figures.perRound.get(mode.key)!.get(key);
      return values ? fmt(medianOf(values.map(total)), 1) : '';
    });
    console.log(
      `| ${SERVERS[server as ServerName]} | ${CASES.find((c) => c.id === id)!.label} | ${cells.join(' | ')} |`,
    );
  }
  console.log('\nCPU ratios (whole process, median of rounds), by mode:\n');
  console.log(`| ratio ${header} goal |\n|---|${rule}---|`);
  for (const [label, mine, theirs, goal] of RATIOS) {
    const cells = modes.map((mode) => {
      const figure = ratioOf(figures.perRound.get(mode.key), mine, theirs);
      return figure && figure.whole.length > 0 ? fmt(medianOf(figure.whole), 2) : '';
    });
    if (cells.every((cell) => cell === '')) continue;
    console.log(`| ${label} | ${cells.join(' | ')} | ${goal} |`);
  }
}
