import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export type StdioServerKind = 'mcp' | 'mcp-context' | 'bare' | 'bare-http' | 'sdk';

const CHILD = fileURLToPath(new URL('./stdio-startup-child.js', import.meta.url));
const DISCOVER = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
})}\n`;

/** What one start costs: wall-clock ms to the first answer, and the server process's own CPU ms until then. */
export interface StdioStart {
  ms: number;
  cpuMs: number;
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** The CPU time a live process has used, from `/proc/<pid>/stat` (utime and stime, in clock ticks). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * What a desktop client waits for when it launches a server on demand: from spawning the process to the first
 * answer on stdout, for a `server/discover` written at once (the pipe holds it until the server reads). The
 * answer must be the JSON-RPC result for that id, else the measurement fails. The CPU figure is the one a busy
 * machine moves least: the wall clock also counts the time the server waited for a core.
 */
export function timeToFirstAnswer(kind: StdioServerKind): Promise<StdioStart> {
  const started = performance.now();
  const child = spawn(process.execPath, [CHILD, kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.write(DISCOVER);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      const elapsed = performance.now() - started;
      const cpuMs = cpuMsOf(child.pid!);
      const answer = JSON.parse(out.slice(0, newline)) as { id?: unknown; result?: unknown };
      child.stdin.end();
      child.kill();
      if (answer.id === 1 && answer.result !== undefined) resolve({ ms: elapsed, cpuMs });
      else reject(new Error(`${kind} stdio server answered ${out.slice(0, newline)}`));
    });
    child.once(
      'exit',
      (code) => out.includes('\n') || reject(new Error(`${kind} stdio server exited with ${code} before answering`)),
    );
  });
}

/** Median start-to-first-answer per server, runs interleaved so a busy moment of the machine hits all alike. */
export async function measureStdioStartup(runs: number): Promise<Record<StdioServerKind, StdioStart>> {
  const samples: Record<StdioServerKind, StdioStart[]> = {
    mcp: [],
    'mcp-context': [],
    bare: [],
    'bare-http': [],
    sdk: [],
  };
  for (let i = 0; i < runs; i++) {
    for (const kind of Object.keys(samples) as StdioServerKind[]) samples[kind].push(await timeToFirstAnswer(kind));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const of = (kind: StdioServerKind): StdioStart => ({
    ms: median(samples[kind].map((s) => s.ms)),
    cpuMs: median(samples[kind].map((s) => s.cpuMs)),
  });
  return Object.fromEntries((Object.keys(samples) as StdioServerKind[]).map((kind) => [kind, of(kind)])) as Record<
    StdioServerKind,
    StdioStart
  >;
}
