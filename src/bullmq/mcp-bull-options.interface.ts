import type { JobsOptions, WorkerOptions } from 'bullmq';

/** Options of `McpBullModule.forRoot`: the queue the tasks of one MCP server run on, and how its workers run. */
export interface McpBullOptions {
  /**
   * The BullMQ queue the tasks' rounds are jobs of. The module registers it (`BullModule.registerQueue`), on the
   * connection and prefix of the app's `BullModule.forRoot` (or of `configKey`).
   */
  queue: string;
  /** The `BullModule.forRoot` configuration (by its `configKey`) the queue uses. Default: the unnamed one. */
  configKey?: string;
  /**
   * Whether this app runs jobs too, once it has started. `false` for a web tier that only queues: jobs then
   * run only in processes started with `bootstrapTaskWorker` from the same module. Default true.
   */
  runJobs?: boolean;
  /** The MCP server whose tools the jobs run, by its name (`McpModule`'s `name`). Default: the default server. */
  server?: string;
  /**
   * BullMQ worker options: `concurrency` (tasks run at once per process, default 16), `lockDuration` and
   * `stalledInterval` (how soon a lost worker's job is given to another: both 30 000 ms by default), limiters.
   * `maxStalledCount` is the module's: it gives a lost job back as often as any tool's `retry` allows.
   */
  worker?: Omit<WorkerOptions, 'connection' | 'autorun' | 'maxStalledCount' | 'prefix'>;
  /**
   * Options of every job (priority, removal). Default: completed jobs kept an hour (at most 1 000), failed ones
   * a day (at most 1 000). A job's result is not the task's: the task store keeps that, for the task's ttlMs.
   */
  jobOptions?: Omit<JobsOptions, 'jobId' | 'attempts' | 'repeat'>;
  /** Register the module globally, so `McpModule.forRootAsync` can inject `McpTaskQueue`. Default true. */
  isGlobal?: boolean;
}
