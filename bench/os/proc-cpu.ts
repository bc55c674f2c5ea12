import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/**
 * The CPU time a process has used, all its threads (JavaScript, GC helpers, libuv's pool), user and system, in
 * microseconds: `utime + stime` of `/proc/<pid>/stat`, what `top` and a container's CPU accounting see. Read from
 * outside the process, so reading it costs the process nothing. The kernel counts in clock ticks (10 ms at the
 * usual 100 Hz): a window must hold seconds of CPU for a figure to be good to a per cent.
 */
export function processCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces: utime is the 14th field of
  // the line, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

/** The median of `values` (the upper one of an even count). */
export function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
