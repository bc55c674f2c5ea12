import {
  ConsoleLogger,
  type DynamicModule,
  type INestApplicationContext,
  type LoggerService,
  type LogLevel,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { McpKernel } from '../server/mcp-kernel.js';
import { McpStdioDriver, type McpStdioOptions } from '../stdio/mcp-stdio.driver.js';
import { guardStdout } from '../stdio/stdout-guard.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { MCP_KERNEL } from './mcp.constants.js';

export interface McpStdioBootstrapOptions extends McpStdioOptions {
  /**
   * Nest's logger (it writes to stderr while stdio runs). Default: Nest's own at `log` and above, colored only
   * when stderr is a terminal (a client that keeps the server's stderr as a log file gets plain text).
   */
  logger?: LoggerService | LogLevel[] | false;
  /** End the process once the app is closed (stdin ended, SIGINT, SIGTERM). Default true. */
  exitOnClose?: boolean;
}

/** A Nest app serving MCP on stdin/stdout. */
export interface McpStdioApplication {
  readonly app: INestApplicationContext;
  /** Stops reading, drains calls in flight, closes the app (its shutdown hooks run); idempotent. */
  close(): Promise<void>;
  /** Settles once the app is closed, whatever closed it. */
  readonly closed: Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Starts `module` as a local MCP server on stdin/stdout, the way desktop clients launch one: a Nest application
 * context (no HTTP server) with the same `McpModule` configuration and decorated providers as the HTTP app (the
 * 2025-era settings such as `legacy` included). The limits default to the module's (`maxBodyBytes`,
 * `maxResponseBytes`, `drainTimeoutMs`). Stdout carries MCP
 * messages only: everything else written to it goes to stderr from before the app is created. When stdin ends
 * or on SIGINT/SIGTERM, calls in flight are drained, the app is closed (`onModuleDestroy` and shutdown hooks
 * run) and the process exits.
 *
 * ```ts
 * bootstrapStdio(AppModule);
 * ```
 */
export async function bootstrapStdio(
  module: Type<unknown> | DynamicModule,
  options: McpStdioBootstrapOptions = {},
): Promise<McpStdioApplication> {
  const stdout = guardStdout();
  let app: INestApplicationContext;
  try {
    app = await NestFactory.createApplicationContext(module, {
      logger: options.logger ?? defaultLogger(),
      abortOnError: false,
    });
  } catch (error) {
    stdout.restore();
    throw error;
  }
  const { maxBodyBytes, maxResponseBytes, drainTimeoutMs } = app.get<McpModuleOptions>(MCP_MODULE_OPTIONS);
  const driver = new McpStdioDriver(app.get<McpKernel>(MCP_KERNEL), {
    ...withoutUndefined({ maxMessageBytes: maxBodyBytes, maxResponseBytes, drainTimeoutMs }),
    ...withoutUndefined(options),
  });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const signal of SIGNALS) process.off(signal, close);
      let exitCode = 0;
      try {
        await driver.close();
        await app.close();
      } catch (error) {
        // A shutdown hook that throws must not leave the process running with stdin gone. Written to stderr
        // itself: the app, and with it the logger it was given, is half closed by now.
        exitCode = 1;
        process.stderr.write(
          `MCP stdio server: shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
      }
      stdout.restore();
      process.stdin.destroy();
      if (options.exitOnClose !== false) process.exit(exitCode);
    })());
  for (const signal of SIGNALS) process.once(signal, close);
  // The client went away on the other end of stdout: writing further would only fail.
  process.stdout.once('error', close);
  const closed = driver.serve(process.stdin, stdout.sink).then(close);
  return { app, close, closed };
}

function defaultLogger(): LoggerService {
  return new ConsoleLogger({ logLevels: ['log', 'error', 'warn'], colors: process.stderr.isTTY === true });
}

/** Options given as undefined leave the default in place instead of overriding it. */
function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
