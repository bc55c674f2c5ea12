import type { DynamicModule, INestApplicationContext, LoggerService, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpTaskWorker } from './mcp-task-worker.js';

export interface McpTaskWorkerBootstrapOptions {
  /** Nest's logger. Default: Nest's own. */
  logger?: LoggerService | LogLevel[] | false;
}

/**
 * Starts `module` (the app's own `AppModule`) as a task worker: a Nest application context with no HTTP
 * server, whose `McpBullModule` worker takes jobs whatever its `runJobs` says. The tools run with the same
 * providers, guards, interceptors and pipes as in the web app; guards see a local request whose `user` is the
 * caller's principal (as for stdio). Resolves once the worker takes jobs. SIGINT and SIGTERM close the app:
 * the worker takes no more jobs, lets the running rounds finish, and the process exits.
 *
 * ```ts
 * // worker.ts, started beside (or instead of) main.ts
 * void bootstrapTaskWorker(AppModule);
 * ```
 */
export async function bootstrapTaskWorker(
  module: Type<unknown> | DynamicModule,
  options: McpTaskWorkerBootstrapOptions = {},
): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(module, { logger: options.logger });
  app.enableShutdownHooks();
  await app.get(McpTaskWorker, { strict: false }).start();
  return app;
}
