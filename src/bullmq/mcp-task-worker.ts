import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { Worker, type Job, type Queue, type QueueOptions, type WorkerOptions } from 'bullmq';
import type { MCPServer } from '../nest/mcp.server.js';
import { getMcpServerToken } from '../nest/mcp-server.token.js';
import type { QueuedTask } from '../server/tasks/task-queue.js';
import type { McpBullOptions } from './mcp-bull-options.interface.js';

// Above the largest `retry` a tool may declare: BullMQ itself never fails a lost job; the kernel decides, per tool.
const MAX_STALLED_COUNT = 101;

// What @nestjs/bullmq's `BullModule.forRoot` and `registerQueue` add to BullMQ's options.
type NestQueueOptions = QueueOptions & { sharedConnection?: boolean };
type NestWorkerOptions = WorkerOptions & { sharedConnection?: boolean };

/**
 * The BullMQ worker that runs the rounds of queued tasks with the MCP server's own handlers (same providers,
 * same guards, interceptors and pipes; a request-scoped provider is resolved per round). Built from the
 * queue's connection and prefix, as `@nestjs/bullmq` builds the worker of a `@Processor`, and started once
 * the app has bootstrapped, so every tool is registered before the first job is taken.
 */
export class McpTaskWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpTaskWorker');
  private worker: Worker<QueuedTask> | undefined;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly queue: Queue,
    private readonly options: McpBullOptions,
  ) {}

  /** Once every module has initialised (every tool registered): unless `runJobs: false`, starts taking jobs. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.options.runJobs !== false) await this.start();
  }

  /** True once this process takes jobs. */
  get running(): boolean {
    return this.worker?.isRunning() ?? false;
  }

  /** Starts taking jobs (idempotent); resolves once the worker is connected. */
  async start(): Promise<void> {
    if (this.worker) return this.worker.waitUntilReady().then(() => undefined);
    const server = this.moduleRef.get<MCPServer>(getMcpServerToken(this.options.server), { strict: false });
    // The queue's connection options as @nestjs/bullmq gives them to a `@Processor`'s worker, `sharedConnection`
    // among them, so a worker moved from a `@Processor` runs on what the app configured. BullMQ 5 and 6 keep that
    // one in the options without reading it (their types leave it out): it changes nothing there.
    const { connection, prefix, telemetry, sharedConnection } = this.queue.opts as NestQueueOptions;
    const options: NestWorkerOptions = {
      concurrency: 16,
      ...this.options.worker,
      connection,
      sharedConnection,
      prefix,
      telemetry,
      maxStalledCount: MAX_STALLED_COUNT,
    };
    const worker = new Worker<QueuedTask>(
      this.queue.name,
      (job: Job<QueuedTask>) => server.runQueuedTask(job.data, job.stalledCounter),
      options,
    );
    worker.on('error', (error) => this.logger.error(`Queue ${this.queue.name}: ${error.message}`, error.stack));
    this.worker = worker;
    await worker.waitUntilReady();
  }

  /**
   * Before the MCP server closes: takes no more jobs and lets the running rounds finish (a deploy's SIGTERM ends
   * no task; give the process the grace period its longest task needs, or it is killed and its jobs are lost).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }
}
