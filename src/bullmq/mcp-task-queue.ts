import type { JobsOptions, Queue } from 'bullmq';
import type { QueuedTask, TaskQueue } from '../server/tasks/task-queue.js';
import type { McpBullOptions } from './mcp-bull-options.interface.js';

// Kept for dashboards a while, then dropped: the store keeps each task's outcome, so the queue holds no more
// than these whatever the number of tasks.
const DEFAULT_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 24 * 3_600, count: 1_000 },
};

/**
 * The BullMQ queue as a task queue: each round of a task is a job named after the tool, whose data names the
 * task and the round (the call itself stays in the task store). Job ids are the task's id and round, so a
 * round queued twice is one job. Give it to `McpModule` as `tasks.queue`.
 */
export class McpTaskQueue implements TaskQueue {
  private readonly jobOptions: JobsOptions;

  constructor(
    /** The BullMQ queue (as `@InjectQueue(name)` gives it), for dashboards and metrics. */
    readonly queue: Queue,
    options: Pick<McpBullOptions, 'jobOptions'> = {},
  ) {
    this.jobOptions = { ...DEFAULT_JOB_OPTIONS, ...options.jobOptions };
  }

  async add(task: QueuedTask): Promise<void> {
    // One attempt: a handler's failure is the task's outcome, never a reason to run it again; only a lost
    // worker is, as the tool's `retry` allows.
    await this.queue.add(task.tool, task, { ...this.jobOptions, attempts: 1, jobId: `${task.taskId}.${task.round}` });
  }
}
