import { measureTasksQueue, printTasksQueue } from './tasks-queue-engine.js';

/**
 * `npm run bench:tasks-queue`: tasks on BullMQ against bare BullMQ doing the same work (see
 * `tasks-queue-engine.ts`), with the batch sizes of a full run; `BENCH_SMOKE=1` for a quick one.
 */
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

printTasksQueue(await measureTasksQueue(process.env.BENCH_SMOKE === '1'), fmt);
