import autocannon from 'autocannon';
import { CASES, requestBody, requestHeaders, SERVERS, type BenchCase, type ServerName } from '../fixtures.js';
import { medianOf, processCpuUs } from './proc-cpu.js';
import { startServerChild, stopServerChild } from '../server-process.js';

/**
 * CPU per request as a deployment sees it: the server's whole process (every thread, user + system) from
 * `/proc/<pid>/stat`, over a fixed number of requests from autocannon, each server in its own process, the servers alternating round by
 * round so that whatever else the machine runs weighs on all of them alike. Beside the bare Nest route: `add`
 * registered with `registerTool`, and declared as users mostly declare it, a `@Tool` method of a provider (also
 * asked by a 2025-era client). The instruction gauge (`bench:instructions`) counts the same servers' main thread.
 */
const PLAN: Array<[ServerName, string[]]> = [
  ['nest-fastify', ['call']],
  ['mcp-fastify', ['call']],
  ['mcp-fastify-decorated', ['call', 'call-2025']],
  ['nest-express', ['call']],
  ['mcp-express', ['call']],
  ['mcp-express-decorated', ['call', 'call-2025']],
];

export interface OsCpuFigures {
  /** CPU µs per request, one figure per round, by `server/case`. */
  perRound: Map<string, number[]>;
  failures: string[];
}

export async function measureOsCpu(options: {
  smoke: boolean;
  rounds: number;
  /** Requests in each measured window (half as many warm it up). */
  requests: number;
  connections: number;
}): Promise<OsCpuFigures> {
  const plan = options.smoke ? PLAN.filter(([server]) => server.includes('fastify')) : PLAN;
  const perRound = new Map<string, number[]>();
  const failures: string[] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const [server, caseIds] of plan) {
      const { child, port } = await startServerChild(server, ['5', 'legacy']);
      try {
        for (const id of caseIds) {
          const benchCase = CASES.find((c) => c.id === id)!;
          if (!(await answersFive(port, benchCase))) {
            failures.push(`${server}/${id}: a wrong answer`);
            continue;
          }
          // Counted in requests, not seconds: on a busy machine a timed warm-up may end before the hot path is
          // compiled, and the compiler's threads would then bill a timed window's few requests for it.
          const load = (amount: number) => cannon(port, benchCase, amount, options.connections);
          const warm = await load(options.requests / 2);
          const before = processCpuUs(child.pid!);
          const result = await load(options.requests);
          const used = processCpuUs(child.pid!) - before;
          const answered = result.requests.total;
          if (warm.non2xx + result.non2xx + result.errors > 0 || answered === 0) {
            failures.push(`${server}/${id}: ${result.non2xx} non-2xx, ${result.errors} errors of ${answered}`);
            continue;
          }
          const key = `${server}/${id}`;
          perRound.set(key, [...(perRound.get(key) ?? []), used / answered]);
        }
      } finally {
        await stopServerChild(child);
      }
    }
  }
  return { perRound, failures };
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

/** The table of µs per request, then each ratio as the median of its rounds' ratios, with their range. */
export function printOsCpu(figures: OsCpuFigures, fmt: (n: number, digits?: number) => string): void {
  const rounds = Math.max(0, ...[...figures.perRound.values()].map((v) => v.length));
  console.log(
    `\nWhole-process CPU per request from the OS (/proc/<pid>/stat utime + stime, all threads), ${rounds} alternating round(s):\n`,
  );
  console.log(
    `| server | case | ${Array.from({ length: rounds }, (_, i) => `round ${i + 1}`).join(' | ')} | median µs/req |`,
  );
  console.log(`|---|---|${'---:|'.repeat(rounds)}---:|`);
  for (const [key, values] of figures.perRound) {
    const [server, id] = key.split('/');
    const label = CASES.find((c) => c.id === id)!.label;
    console.log(
      `| ${SERVERS[server as ServerName]} | ${label} | ${values.map((v) => fmt(v, 1)).join(' | ')} | ${fmt(medianOf(values), 1)} |`,
    );
  }
  const ratio = (label: string, mine: string, theirs: string, goal: string) => {
    const a = figures.perRound.get(mine);
    const b = figures.perRound.get(theirs);
    if (!a || !b) return;
    const each = a.map((v, i) => v / b[i]).filter((v) => Number.isFinite(v));
    const range = each.length > 1 ? ` (${fmt(Math.min(...each), 2)}–${fmt(Math.max(...each), 2)})` : '';
    console.log(`| ${label} | ${fmt(medianOf(each), 2)}${range} | ${goal} |`);
  };
  console.log('\n| CPU ratio, whole process | median of rounds (range) | goal |');
  console.log('|---|---:|---|');
  for (const [name, bare, mcp] of [
    ['Fastify', 'nest-fastify', 'mcp-fastify'],
    ['Express', 'nest-express', 'mcp-express'],
  ] as const) {
    const goal = name === 'Fastify' ? '≤ 1.15' : '≤ 1.05';
    ratio(`${name}: @Tool add ÷ bare Nest route`, `${mcp}-decorated/call`, `${bare}/call`, goal);
    ratio(`${name}: registerTool add ÷ bare Nest route`, `${mcp}/call`, `${bare}/call`, goal);
    ratio(
      `${name}: @Tool add, 2025-era client ÷ 2026-07-28 client`,
      `${mcp}-decorated/call-2025`,
      `${mcp}-decorated/call`,
      '≤ 1.05',
    );
  }
}
