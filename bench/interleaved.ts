/** Median wall time (ms) and this process's CPU time per run (µs) of each kind of request. */
export type Interleaved<K extends string> = Record<K, { ms: number; cpuUs: number }>;

/**
 * Runs each kind `runs` times, one request at a time, the kinds interleaved so a busy neighbour skews them
 * alike, after a tenth as many warm-up rounds.
 */
export async function timeInterleaved<K extends string>(
  kinds: Record<K, () => Promise<void>>,
  runs: number,
): Promise<Interleaved<K>> {
  const entries = Object.entries(kinds) as Array<[K, () => Promise<void>]>;
  for (let i = 0; i < runs / 10; i++) for (const [, run] of entries) await run();
  const wall = new Map<K, number[]>(entries.map(([kind]) => [kind, []]));
  const cpu = new Map<K, number>(entries.map(([kind]) => [kind, 0]));
  for (let i = 0; i < runs; i++) {
    for (const [kind, run] of entries) {
      const started = process.hrtime.bigint();
      const usage = process.cpuUsage();
      await run();
      const spent = process.cpuUsage(usage);
      wall.get(kind)!.push(Number(process.hrtime.bigint() - started) / 1e6);
      cpu.set(kind, cpu.get(kind)! + spent.user + spent.system);
    }
  }
  const figures = {} as Interleaved<K>;
  for (const [kind] of entries) figures[kind] = { ms: median(wall.get(kind)!), cpuUs: cpu.get(kind)! / runs };
  return figures;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
