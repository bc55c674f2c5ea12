import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const US_PER_TICK = 1e6 / TICKS_PER_SECOND;

/** CPU time of a process split by who spent it, in microseconds. */
export interface ThreadCpu {
  /** The main thread, which runs JavaScript (and the scavenges' share of it that V8 keeps there), in user mode. */
  mainUser: number;
  /** The main thread in the kernel: the system calls (reads, writes, the loopback TCP path), page faults. */
  mainSystem: number;
  /** Every other thread: V8's helpers (concurrent marking and sweeping, parallel scavenging, compilation), libuv's pool. */
  others: number;
}

/**
 * `utime` and `stime` of one `stat` line (the 14th and 15th fields, counted after the command name, which is in
 * parentheses and may hold spaces), in microseconds.
 */
function userSystemUs(stat: string): [number, number] {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) * US_PER_TICK, Number(fields[12]) * US_PER_TICK];
}

/**
 * The CPU time a process has used, all its threads (JavaScript, GC helpers, libuv's pool), user and system, in
 * microseconds: `utime + stime` of `/proc/<pid>/stat`, what `top` and a container's CPU accounting see. Read from
 * outside the process, so reading it costs the process nothing. The kernel counts in clock ticks (10 ms at the
 * usual 100 Hz): a window must hold seconds of CPU for a figure to be good to a per cent.
 */
export function processCpuUs(pid: number): number {
  const [user, system] = userSystemUs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return user + system;
}

/**
 * The same time split by thread (`/proc/<pid>/task/<tid>/stat`): the main thread, whose user time is what the
 * instruction gauge counts, and the rest. A thread that ended between two readings takes its time with it, so
 * read the split over windows in which the process keeps its threads (V8's and libuv's live as long as it does).
 */
export function threadCpuUs(pid: number): ThreadCpu {
  const split: ThreadCpu = { mainUser: 0, mainSystem: 0, others: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // ended since the listing
    }
    const [user, system] = userSystemUs(stat);
    if (tid === String(pid)) {
      split.mainUser += user;
      split.mainSystem += system;
    } else {
      split.others += user + system;
    }
  }
  return split;
}

/** The median of `values` (the upper one of an even count). */
export function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
