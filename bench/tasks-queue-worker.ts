import { Worker, type Job } from 'bullmq';
import type { QueuedTask } from '../src/core/index.js';
import { installedRedis } from './servers/installed-package.js';
import { taskKernel, untilListening, type QueueEngine } from './tasks-queue-setup.js';

/**
 * One worker process of the tasks-queue bench: `tasks-queue-worker.js <engine> <redis url> <queue> <secret>
 * <concurrency>`. `bare` runs the job `add` as BullMQ does with a plain processor (the sum is the job's return
 * value); `mcp` runs the queued rounds of MCP tasks with a kernel of the built package on the Redis backends, as
 * `McpTaskWorker` does. Says `ready` over IPC once its worker takes jobs, answers `usage` with its CPU time, and exits on
 * `stop` once its worker has closed.
 */
const [engine, url, queueName, secret, concurrency] = process.argv.slice(2) as [
  QueueEngine,
  string,
  string,
  string,
  string,
];
const { hostname, port } = new URL(url);
const connection = { host: hostname, port: Number(port) };

let processor: (job: Job) => Promise<unknown>;
let close = async () => {};
if (engine === 'mcp') {
  const { McpRedisBackends, McpRedisConnections } = await installedRedis();
  const connections = McpRedisConnections.open({ url });
  const backends = new McpRedisBackends(connections);
  const kernel = await taskKernel(backends, secret);
  await untilListening(backends);
  processor = (job: Job<QueuedTask>) => kernel.runQueuedTask(job.data, job.stalledCounter);
  close = async () => {
    kernel.close();
    await backends.close();
    await connections.close();
  };
} else {
  processor = async (job: Job<{ a: number; b: number }>) => job.data.a + job.data.b;
}

const worker = new Worker(queueName, processor, { connection, concurrency: Number(concurrency) });
worker.on('error', (error) => console.error(`bench worker: ${error.message}`));

process.on('message', (message) => {
  if (message === 'usage') process.send!(process.cpuUsage());
  if (message === 'stop') {
    void worker
      .close()
      .then(close)
      .then(() => process.exit(0));
  }
});
await worker.waitUntilReady();
process.send!('ready');
