import autocannon from 'autocannon';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { CASES, requestBody, requestHeaders, SERVERS, type BenchCase, type ServerName } from '../fixtures.js';
import { medianOf, threadCpuUs, type ThreadCpu } from './proc-cpu.js';
import { startServerChild, stopServerChild } from '../server-process.js';

/**
 * CPU per request as a deployment sees it: the server's whole process (every thread, user + system) from
 * `/proc`, over a fixed number of requests from autocannon, each server in its own process. Beside the bare Nest
 * route: `add` registered with `registerTool`, and declared as users mostly declare it, a `@Tool` method of a
 * provider (also asked by a 2025-era client), and the same behind `McpThrottlerGuard`; and the bare route behind
 * the rules the protocol asks of every call, written by hand (`servers/checked-dispatch.ts`), which parts the gap
 * into what any conforming server pays and what this library adds. The instruction gauge (`bench:instructions`)
 * counts the same servers' main thread.
 *
 * One adapter's servers run side by side and their windows alternate, round after round: a machine that slows
 * down or speeds up (another tenant, the CPU's clock) then weighs on every server's window of a round alike, and
 * each ratio is the median of the rounds' own ratios. Each window is split by thread, so the main thread's user
 * time can be read beside the gauge, apart from the kernel's share and V8's helper threads. With two cores or more
 * (and `taskset`; BENCH_PIN=0 turns it off), the servers run on the last core and the load generator on the
 * others, so neither takes the other's core or caches: on a 2-core machine this narrows a window's scatter
 * several times over.
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

export interface OsCpuFigures {
  /** CPU µs per request split by thread, one figure per round, by `server/case`. */
  perRound: Map<string, ThreadCpu[]>;
  failures: string[];
}

export async function measureOsCpu(options: {
  smoke: boolean;
  rounds: number;
  /** Requests in each measured window (as many again warm each server up first). */
  requests: number;
  connections: number;
  /** Only these servers' rows (BENCH_ONLY), to read one comparison. */
  only?: readonly string[];
}): Promise<OsCpuFigures> {
  // Smoke mode checks answers: one adapter's group, and of the others only what no other check starts.
  const groups = options.smoke
    ? [GROUPS[0], ...GROUPS.slice(1).map((group) => group.filter(([server]) => server.endsWith('throttled')))]
    : GROUPS.map((group) => group.filter(([server]) => !options.only || options.only.includes(server)));
  const figures: OsCpuFigures = { perRound: new Map(), failures: [] };
  const pin = pinning();
  try {
    pin?.load(process.pid);
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

/** The cores the servers and the load generator keep to, or undefined where they cannot be kept apart. */
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

async function measureGroup(
  group: Array<[ServerName, string]>,
  options: { rounds: number; requests: number; connections: number },
  figures: OsCpuFigures,
  pin: Pinning | undefined,
): Promise<void> {
  const children = new Map<ServerName, { child: ChildProcess; port: number }>();
  try {
    for (const [server] of group) {
      if (children.has(server)) continue;
      const started = await startServerChild(server, ['5', 'legacy']);
      children.set(server, started);
      pin?.server(started.child.pid!);
    }
    const windows: Array<{ key: string; child: ChildProcess; load: (amount: number) => Promise<number> }> = [];
    for (const [server, id] of group) {
      const benchCase = CASES.find((c) => c.id === id)!;
      const { child, port } = children.get(server)!;
      const key = `${server}/${id}`;
      if (!(await answersFive(port, benchCase))) {
        figures.failures.push(`${key}: a wrong answer`);
        continue;
      }
      const load = async (amount: number) => {
        const result = await cannon(port, benchCase, amount, options.connections);
        if (result.non2xx + result.errors > 0 || result.requests.total === 0)
          throw new Error(`${key}: ${result.non2xx} non-2xx, ${result.errors} errors of ${result.requests.total}`);
        return result.requests.total;
      };
      // Counted in requests, not seconds: on a busy machine a timed warm-up may end before the hot path is
      // compiled, and the compiler's threads would then bill a window's few requests for it.
      await load(options.requests);
      windows.push({ key, child, load });
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const { key, child, load } of windows) {
        const before = threadCpuUs(child.pid!);
        const answered = await load(options.requests);
        const after = threadCpuUs(child.pid!);
        const per = (part: keyof ThreadCpu) => (after[part] - before[part]) / answered;
        const window = { mainUser: per('mainUser'), mainSystem: per('mainSystem'), others: per('others') };
        figures.perRound.set(key, [...(figures.perRound.get(key) ?? []), window]);
      }
    }
  } catch (error) {
    figures.failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    for (const { child } of children.values()) await stopServerChild(child);
  }
}

function cannon(port: number, benchCase: BenchCase, amount: number, connections: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}/mcp`,
    method: 'POST',
    headers: requestHeaders(benchCase),
    body: requestBody(benchCase),
    connections,
    amount,
  });
}

/** One request before the load: a server that answers something else must not get a figure. */
async function answersFive(port: number, benchCase: BenchCase): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: requestHeaders(benchCase),
    body: requestBody(benchCase),
  });
  return res.status === 200 && (await res.text()).includes('"text":"5"');
}

const total = (cpu: ThreadCpu) => cpu.mainUser + cpu.mainSystem + cpu.others;

/**
 * The table of µs per request (the median of the rounds, whole process and by thread), then each ratio as the
 * median of the rounds' ratios with their range, whole process and main thread in user mode.
 */
export function printOsCpu(figures: OsCpuFigures, fmt: (n: number, digits?: number) => string): void {
  const rounds = Math.max(0, ...[...figures.perRound.values()].map((v) => v.length));
  console.log(
    `\nCPU per request from the OS (/proc utime + stime), each adapter's servers side by side, ${rounds} alternating window(s) each:\n`,
  );
  console.log(
    '| server | case | whole process µs/req (range) | main thread, user | main thread, system | other threads |',
  );
  console.log('|---|---|---:|---:|---:|---:|');
  for (const [key, values] of figures.perRound) {
    const [server, id] = key.split('/');
    const label = CASES.find((c) => c.id === id)!.label;
    const totals = values.map(total);
    const median = (part: keyof ThreadCpu) => fmt(medianOf(values.map((v) => v[part])), 1);
    console.log(
      `| ${SERVERS[server as ServerName]} | ${label} | ${fmt(medianOf(totals), 1)} (${fmt(Math.min(...totals), 0)}–${fmt(Math.max(...totals), 0)}) | ${median('mainUser')} | ${median('mainSystem')} | ${median('others')} |`,
    );
  }
  const ratio = (label: string, mine: string, theirs: string, goal: string) => {
    const a = figures.perRound.get(mine);
    const b = figures.perRound.get(theirs);
    if (!a || !b) return;
    const each = (of: (cpu: ThreadCpu) => number) =>
      a.map((v, i) => of(v) / of(b[i])).filter((v) => Number.isFinite(v));
    const whole = each(total);
    const user = each((cpu) => cpu.mainUser);
    const range = whole.length > 1 ? ` (${fmt(Math.min(...whole), 2)}–${fmt(Math.max(...whole), 2)})` : '';
    console.log(`| ${label} | ${fmt(medianOf(whole), 2)}${range} | ${fmt(medianOf(user), 2)} | ${goal} |`);
  };
  console.log('\n| CPU ratio | whole process: median of rounds (range) | main thread, user: median | goal |');
  console.log('|---|---:|---:|---|');
  for (const [name, bare, mcp] of [
    ['Fastify', 'nest-fastify', 'mcp-fastify'],
    ['Express', 'nest-express', 'mcp-express'],
  ] as const) {
    const goal = name === 'Fastify' ? '≤ 1.15' : '≤ 1.05';
    ratio(`${name}: @Tool add ÷ bare Nest route`, `${mcp}-decorated/call`, `${bare}/call`, goal);
    ratio(`${name}: registerTool add ÷ bare Nest route`, `${mcp}/call`, `${bare}/call`, goal);
    ratio(`${name}: the protocol's rules by hand ÷ bare Nest route`, `${bare}-checked/call`, `${bare}/call`, 'no goal');
    ratio(
      `${name}: @Tool add ÷ the protocol's rules by hand`,
      `${mcp}-decorated/call`,
      `${bare}-checked/call`,
      'no goal',
    );
    ratio(
      `${name}: @Tool add, 2025-era client ÷ 2026-07-28 client`,
      `${mcp}-decorated/call-2025`,
      `${mcp}-decorated/call`,
      '≤ 1.05',
    );
    ratio(
      `${name}: @Tool add behind McpThrottlerGuard ÷ @Tool add`,
      `${mcp}-throttled/call`,
      `${mcp}-decorated/call`,
      'no goal',
    );
  }
}
