import type { McpKernel, TaskQueue } from '../src/core/index.js';
import type { McpRedisBackends } from '../src/redis/index.js';
import { ADD_TOOL } from './fixtures.js';
import { installedCore } from './servers/installed-package.js';

/** What runs the jobs of a tasks-queue run: BullMQ with a plain processor, or MCP tasks on BullMQ. */
export type QueueEngine = 'bare' | 'mcp';

/** The options of every BullMQ job of the bench, both engines: those `McpTaskQueue` gives by default. */
export const JOB_OPTIONS = {
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 24 * 3_600, count: 1_000 },
  attempts: 1,
};

/**
 * A kernel of the built package on the Redis backends (the documented `McpRedisModule` set-up) with the task
 * tool `add`: the web instance's when given the queue, the worker's without. Bounds are generous: the bench creates tasks far
 * faster than their TTL lets them go.
 */
export async function taskKernel(backends: McpRedisBackends, secret: string, queue?: TaskQueue): Promise<McpKernel> {
  const { McpKernel } = await installedCore();
  const kernel = new McpKernel({
    name: 'bench',
    version: '1.0.0',
    ...backends,
    requestState: { ...backends.requestState, secret },
    tasks: { ...backends.tasks, queue, maxTasks: 1_000_000, maxTasksPerCaller: 1_000_000 },
  });
  kernel.addTool({
    ...ADD_TOOL,
    taskSupport: 'required',
    handler: ({ a, b }: { a: number; b: number }) => a + b,
  });
  return kernel;
}

/** Resolves once every backend listens on Redis (a task may start only once its signals can reach it). */
export async function untilListening(backends: McpRedisBackends): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!backends.listening) {
    if (Date.now() > deadline) throw new Error('the Redis backends did not listen within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
