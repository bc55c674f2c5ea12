import { Module, type DynamicModule } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { BullModule, getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { McpBullOptions } from './mcp-bull-options.interface.js';
import { McpTaskQueue } from './mcp-task-queue.js';
import { McpTaskWorker } from './mcp-task-worker.js';

/**
 * Runs the tasks of an MCP server's tools (SEP-2663, `taskSupport`) as BullMQ jobs: the web tier queues them
 * and answers `tasks/*` from the shared task store; workers, in the same app or in processes started with
 * `bootstrapTaskWorker` from the same module, run the tools' own handlers. Beside `BullModule.forRoot` (the
 * connection) and a shared task store (`nestjs-mcp/redis`):
 *
 * ```ts
 * @Module({
 *   imports: [
 *     BullModule.forRoot({ connection: { url: process.env.REDIS_URL } }),
 *     McpRedisModule.forRoot({ url: process.env.REDIS_URL }),
 *     McpBullModule.forRoot({ queue: 'mcp-tasks', runJobs: false }),
 *     McpModule.forRootAsync({
 *       inject: [McpRedisBackends, McpTaskQueue],
 *       useFactory: (redis: McpRedisBackends, queue: McpTaskQueue) => ({
 *         name: 'reports',
 *         version: '1.0.0',
 *         ...redis,
 *         // Signs each queued call; the workers verify it, so they need the same secret.
 *         requestState: { ...redis.requestState, secret: process.env.MCP_STATE_SECRET },
 *         tasks: { ...redis.tasks, queue },
 *       }),
 *     }),
 *   ],
 *   providers: [ReportTools],
 * })
 * export class AppModule {}
 * ```
 */
@Module({})
export class McpBullModule {
  static forRoot(options: McpBullOptions): DynamicModule {
    const queueToken = getQueueToken(options.queue);
    return {
      module: McpBullModule,
      global: options.isGlobal ?? true,
      imports: [BullModule.registerQueue({ name: options.queue, configKey: options.configKey })],
      providers: [
        {
          provide: McpTaskQueue,
          useFactory: (queue: Queue) => new McpTaskQueue(queue, options),
          inject: [queueToken],
        },
        {
          provide: McpTaskWorker,
          useFactory: (moduleRef: ModuleRef, queue: Queue) => new McpTaskWorker(moduleRef, queue, options),
          inject: [ModuleRef, queueToken],
        },
      ],
      exports: [McpTaskQueue, McpTaskWorker],
    };
  }
}
