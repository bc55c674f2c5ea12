import { Agent } from 'node:http';
import { exchange, requestBody, requestHeaders, shapeCase, type BenchCase, type ServerName } from '../fixtures.js';
import { medianOf, processCpuUs } from './proc-cpu.js';
import { startServerChild, stopServerChild } from '../server-process.js';

/**
 * What an argument's shape costs: `tools/call` with 1,000, 10,000 and 100,000 small objects in one argument,
 * against the bare Nest route given the same body, by the server process's CPU per request from the OS. Requests
 * go one at a time (the cost is the server's, whatever the concurrency), the servers alternate round by round,
 * and each figure is the median of its rounds. A library that walks or copies an argument per member, or leaves
 * garbage per member, shows here as a ratio that grows with the members, and as a cost above the bare route per
 * 1,000 members that grows too.
 */
const MEMBERS = [1_000, 10_000, 100_000] as const;
const PAIRS: Array<[string, ServerName, ServerName]> = [
  ['Fastify', 'mcp-fastify', 'nest-fastify'],
  ['Express', 'mcp-express', 'nest-express'],
];

/** Requests per window: enough CPU for the 10 ms ticks the OS counts in, or a handful in smoke mode. */
function counts(members: number, smoke: boolean): { warmUp: number; requests: number } {
  if (smoke) return { warmUp: 1, requests: members >= 100_000 ? 2 : 5 };
  return { warmUp: Math.max(3, 100_000 / members), requests: Math.max(20, 1_000_000 / members) };
}

export interface ShapeFigures {
  /** CPU µs per request, one figure per round, by `server/members`. */
  perRound: Map<string, number[]>;
  failures: string[];
}

export async function measureArgumentShape(smoke: boolean, rounds: number): Promise<ShapeFigures> {
  const cases = MEMBERS.map((members) => ({ members, benchCase: shapeCase(members) }));
  const bodies = new Map(cases.map(({ benchCase }) => [benchCase, requestBody(benchCase)]));
  const servers = (smoke ? PAIRS.slice(0, 1) : PAIRS).flatMap(([, mine, bare]) => [mine, bare]);
  const perRound = new Map<string, number[]>();
  const failures: string[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const server of servers) {
      const { child, port } = await startServerChild(server, ['5', 'shape']);
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (const { members, benchCase } of cases) {
          const { warmUp, requests } = counts(members, smoke);
          const send = async (count: number) => {
            for (let i = 0; i < count; i++) await post(port, agent, benchCase, bodies.get(benchCase)!);
          };
          await send(warmUp);
          const before = processCpuUs(child.pid!);
          await send(requests);
          const key = `${server}/${members}`;
          perRound.set(key, [...(perRound.get(key) ?? []), (processCpuUs(child.pid!) - before) / requests]);
        }
      } catch (error) {
        failures.push(`${server}: ${(error as Error).message.slice(0, 200)}`);
      } finally {
        agent.destroy();
        await stopServerChild(child);
      }
    }
  }
  return { perRound, failures };
}

async function post(port: number, agent: Agent, benchCase: BenchCase, body: string): Promise<void> {
  const { status, text } = await exchange(port, agent, 'POST', requestHeaders(benchCase), body);
  if (status !== 200 || !text.includes(`"text":"${benchCase.expect}"`))
    throw new Error(`${status}: ${text.slice(0, 200)}`);
}

export function printArgumentShape(figures: ShapeFigures, fmt: (n: number, digits?: number) => string): void {
  const rounds = Math.max(0, ...[...figures.perRound.values()].map((v) => v.length));
  console.log(
    `\nArgument shape (tools/call with N objects {id, name} in one argument, the bare Nest route given the same body; ` +
      `whole-process CPU per request from the OS, one request at a time, median of ${rounds} alternating round(s)):\n`,
  );
  console.log(
    '| adapter | members | bare µs/req | nestjs-mcp µs/req | ratio (range) | nestjs-mcp − bare, µs per 1,000 members |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, mine, bare] of PAIRS) {
    for (const members of MEMBERS) {
      const a = figures.perRound.get(`${mine}/${members}`);
      const b = figures.perRound.get(`${bare}/${members}`);
      if (!a || !b) continue;
      // A window shorter than the OS's clock tick can read 0 (smoke mode): no ratio then.
      const each = a.map((v, i) => v / b[i]).filter((v) => Number.isFinite(v));
      const range = each.length > 1 ? ` (${fmt(Math.min(...each), 2)}–${fmt(Math.max(...each), 2)})` : '';
      console.log(
        `| ${name} | ${fmt(members)} | ${fmt(medianOf(b))} | ${fmt(medianOf(a))} | ${each.length > 0 ? fmt(medianOf(each), 2) : 'n/a'}${range} | ${fmt(((medianOf(a) - medianOf(b)) * 1000) / members, 1)} |`,
      );
    }
  }
}
