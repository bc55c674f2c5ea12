import {
  ConsoleLogger,
  Logger,
  type DynamicModule,
  type INestApplication,
  type INestApplicationContext,
  type NestApplicationOptions,
  type LoggerService,
  type LogLevel,
  type Type,
} from '@nestjs/common';
import { ApplicationConfig, NestFactory, type AbstractHttpAdapter } from '@nestjs/core';
import { McpStdioDriver, type McpStdioOptions } from '../../stdio/mcp-stdio-driver.js';
import { guardStdout } from '../../stdio/stdout-guard.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import type { McpModuleOptions } from '../module/mcp-module-options.interface.js';
import { UNKNOWN_STDIO_SERVER } from '../mcp-messages.js';
import { MCP_MODULE_OPTIONS } from '../module/mcp.module-definition.js';
import { getMcpTransportToken, type McpTransportTarget } from '../module/mcp-transport.token.js';
import { stdioHttpAdapter } from './stdio-http-adapter.js';
import { endpointPaths } from '../endpoint/endpoint-paths.js';
import { containerOf, stdioMiddleware } from './stdio-middleware.js';

export interface McpStdioBootstrapOptions extends Omit<McpStdioOptions, 'around'> {
  /**
   * Which of the app's MCP servers to serve, by its name (as `@InjectMcpServer(name)` takes it). Default: the
   * default server (the one `MCPServer` injects). An unknown name fails start-up with `McpConfigurationError`.
   */
  server?: string;
  /**
   * Nest's logger (it writes to stderr while stdio runs). Default: Nest's own at `log` and above, colored only
   * when stderr is a terminal (a client that keeps the server's stderr as a log file gets plain text).
   */
  logger?: LoggerService | LogLevel[] | false;
  /** End the process once the app is closed (stdin ended, SIGINT, SIGTERM). Default true. */
  exitOnClose?: boolean;
  /**
   * Create the app with an HTTP adapter that never listens, for route tools (`@RouteTool`), whose calls run
   * their route through it: `true` for Nest's default (Express), or an adapter (`new FastifyAdapter()`).
   * Default: a Nest application context, with no HTTP adapter.
   */
  http?: boolean | AbstractHttpAdapter;
  /**
   * The app's own set-up, as `main.ts` runs it before `listen` (often a function `main.ts` already calls):
   * global pipes, filters and interceptors, the global prefix, versioning. Called once, before the app is
   * initialized, on an app with an HTTP adapter that never listens (`http`, Nest's default when not set), so
   * tools over stdio see the pipes HTTP calls see and route tools the paths HTTP routes have.
   */
  configure?: (app: INestApplication) => unknown;
  /**
   * Headers every stdio request carries, as an HTTP client would send them: the app's middleware and the
   * tools' enhancers read them on the request, and route tools forward `authorization`, `cookie` and
   * `routes.forwardHeaders` to their routes, whose guards then authenticate the stdio server. Whoever can
   * write to the process's stdin acts with them. Default: none.
   */
  headers?: Readonly<Record<string, string>>;
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
 * 2025-era settings of `legacy` included) of the default server, or of the one `server` names. The limits
 * default to that server's module options (`http.maxBodyBytes`, `http.maxResponseBytes`, `http.drainTimeoutMs`). Stdout carries
 * MCP messages only: everything else written to it goes to stderr from before the app is created. When stdin ends
 * or on SIGINT/SIGTERM, calls in flight are drained, the app is closed (`onModuleDestroy` and shutdown hooks
 * run) and the process exits. Each request runs inside the app's middleware bound to the MCP endpoint (the
 * contexts MikroORM, nestjs-cls and `AsyncLocalStorage` middleware open); `configure` applies the app's own
 * set-up, `headers` the credential route tools send. The app's enhancers see a stdio call as a local request
 * (see `McpExecutionContext.getTransport()`), and `HttpAdapterHost` holds a stand-in adapter that lets
 * HTTP-style exception filters answer it.
 *
 * ```ts
 * bootstrapStdio(AppModule);
 * bootstrapStdio(AppModule, { server: 'billing' }); // an app with several McpModule servers
 * bootstrapStdio(AppModule, { configure: configureApp }); // the function main.ts calls before listen()
 * ```
 */
export async function bootstrapStdio(
  module: Type<unknown> | DynamicModule,
  options: McpStdioBootstrapOptions = {},
): Promise<McpStdioApplication> {
  const stdout = guardStdout();
  let app: INestApplicationContext;
  try {
    const nestOptions = { logger: options.logger ?? defaultLogger(), abortOnError: false };
    app =
      options.http || options.configure
        ? await createHttpApp(module, options.http || true, nestOptions, options.configure)
        : await NestFactory.createApplicationContext(module, nestOptions);
  } catch (error) {
    stdout.restore();
    throw error;
  }
  let target: McpTransportTarget;
  let around: McpStdioOptions['around'];
  try {
    target = serverOf(app, options.server);
    // Exception filters that answer through `HttpAdapterHost` (the Nest docs' catch-all) find an adapter.
    const container = containerOf(app);
    if (!container.getHttpAdapterRef()) container.setHttpAdapter(stdioHttpAdapter());
    const [endpoint] = endpointPaths(app.get(ApplicationConfig), target.path, target.options.http?.version);
    around = await stdioMiddleware(
      app,
      { endpoint, headers: lowerCased(options.headers), principal: options.principal },
      new Logger('MCPServer'),
    );
  } catch (error) {
    await app.close();
    stdout.restore();
    throw error;
  }
  const { maxBodyBytes, maxResponseBytes, drainTimeoutMs } = target.options.http ?? {};
  const driver = new McpStdioDriver(target.kernel, {
    ...withoutUndefined({ maxMessageBytes: maxBodyBytes, maxResponseBytes, drainTimeoutMs }),
    ...withoutUndefined(options),
    around,
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

/** The server `name` (or the default server) of the app, whichever module of it that server's McpModule is in. */
function serverOf(app: INestApplicationContext, name: string | undefined): McpTransportTarget {
  try {
    return app.get<McpTransportTarget>(getMcpTransportToken(name), { strict: false });
  } catch (error) {
    const servers = app.get<McpModuleOptions>(MCP_MODULE_OPTIONS, { strict: false, each: true });
    throw new McpConfigurationError(
      UNKNOWN_STDIO_SERVER(
        name,
        servers.map((server) => server.name),
      ),
      { cause: error },
    );
  }
}

/** An app whose HTTP adapter routes in-process requests and never listens: stdout stays MCP's. */
async function createHttpApp(
  module: Type<unknown> | DynamicModule,
  http: true | AbstractHttpAdapter,
  nestOptions: NestApplicationOptions,
  configure: McpStdioBootstrapOptions['configure'],
): Promise<INestApplication> {
  const app =
    http === true ? await NestFactory.create(module, nestOptions) : await NestFactory.create(module, http, nestOptions);
  await configure?.(app);
  return app.init();
}

function lowerCased(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}

function defaultLogger(): LoggerService {
  return new ConsoleLogger({ logLevels: ['log', 'error', 'warn'], colors: process.stderr.isTTY === true });
}

/** Options given as undefined leave the default in place instead of overriding it. */
function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
