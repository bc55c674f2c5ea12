import type { ConfigurableModuleAsyncOptions } from '@nestjs/common';
import type { VersionValue } from '@nestjs/common/interfaces/version-options.interface.js';
import type { McpAuthOptions } from '../../auth/tokens/auth-options.js';
import type { McpCallerOptions } from '../../server/access/caller-identity.js';
import type { McpHttpOptions } from '../../http/mcp-http-options.js';
import type { McpCallEvent } from '../../observability/call-events.js';
import type { OpenTelemetryOptions } from '../../observability/open-telemetry.js';
import type { ServerTimeouts } from '../../http/policy/server-timeouts.js';
import type { McpErrorReportingOptions, McpServerOptions } from '../../server/kernel/mcp-server-options.js';
import type { McpRoutesOptions } from '../decorators/route-tool-options.interface.js';
import type { McpModuleUpstream } from '../upstreams/upstream-options.interface.js';
import type { McpPlaygroundOption } from '../playground/playground-options.interface.js';

/** The `observability` group: what the kernel reports of handler errors, plus the logs, traces and metrics of every call. */
export interface McpObservabilityOptions extends McpErrorReportingOptions {
  /** Log one line per failed call (JSON-RPC error or `isError` tool result) through Nest's Logger. Default true. */
  logFailedCalls?: boolean;
  /** Trace every call when `@opentelemetry/api` is installed. Default true; `false` never loads it. */
  telemetry?: boolean | OpenTelemetryOptions;
  /** Called once per call with its method, tool, outcome and duration: the hook for metrics. */
  onCall?: (event: McpCallEvent) => void;
}

/** The `http` group: the Streamable HTTP endpoint, its limits, Host/Origin check, CORS and server timeouts. */
export interface McpModuleHttpOptions extends Omit<McpHttpOptions, 'authenticator'> {
  /**
   * The API version the route answers under when the app calls `enableVersioning`. Default `VERSION_NEUTRAL`:
   * the endpoint stays at `<global prefix>/<path>` whatever `defaultVersion` is, and answers any version header
   * or media type. A version (`'1'`, or several) puts it under that version as any controller would be
   * (`/api/v1/mcp` with URI versioning); the endpoint keeps its own body handling and errors there too.
   */
  version?: VersionValue;
  /**
   * Class decorators put on the MCP route's controller (and the playground's), as if written on it: guards,
   * interceptors and exception filters (`UseGuards(AdminGuard)`), built with McpModule's providers, and the
   * metadata the app's global guards read (`Public()`, `SkipThrottle()`). A pipe, or an enhancer whose
   * dependencies McpModule cannot resolve, fails start-up. With `forRootAsync`, give them beside `useFactory`.
   */
  routeDecorators?: ClassDecorator[];
  /**
   * Opt-in: timeouts set on Nest's HTTP server at start-up, where the application left Node's defaults
   * (`true`: 30 s request, 10 s headers, checked every 1 s). They apply to every route of the app, the MCP
   * route's own `bodyTimeoutMs` aside. Off by default: the server keeps the timeouts the app and Node gave it.
   */
  serverTimeouts?: ServerTimeouts | boolean;
  /**
   * The Server Card at `<endpoint>/server-card` (SEP-2127): on by default without `auth`, off by default with it
   * (a private server does not announce itself: `true` or `{ url }` publishes its card); `false` turns it off.
   * `url` is the endpoint's public URL for its `remotes` (default: `auth.resource`, else the endpoint at the Host
   * asked).
   */
  serverCard?: boolean | { url?: string };
  /** Opt-in: list this server in the site's `/.well-known/mcp/catalog.json` (for apps that own their `.well-known`). */
  catalog?: boolean;
}

/**
 * Options of `McpModule.forRoot` / `forRootAsync`. `name` and `version` are all a server needs; the rest have
 * secure defaults (loopback-only Host/Origin allowlist, 4 MiB bodies, a per-process request-state key) and sit in
 * one group per concern. The module logs through Nest's `Logger` (context `MCPServer`), so the kernel's `logger`
 * option is not offered.
 */
export interface McpModuleOptions extends Omit<McpServerOptions, 'logger' | 'observability' | 'auth'> {
  /**
   * Makes the endpoint an OAuth 2.1 resource server (see docs/authorization.md), off by default; or, as
   * `{ identify }` alone, only says how the callers an app's own guard authenticated are told apart.
   */
  auth?: McpAuthOptions | McpCallerOptions;
  /**
   * Modules whose providers' `@Tool`, `@Resource`, `@ResourceTemplate` and `@Prompt` methods this server
   * serves (their own providers, not those of their imports). Default: every module of the app.
   */
  include?: Function[];
  http?: McpModuleHttpOptions;
  observability?: McpObservabilityOptions;
  /** Controller routes served as tools, besides those marked `@RouteTool` (see docs/route-tools.md). */
  routes?: McpRoutesOptions;
  /**
   * Other MCP servers mounted on this endpoint: their tools and prompts as `<prefix>_<name>`, their resources
   * under their own URIs, each call run as a local one (auth, guards, scopes, limits, audit). See docs/gateway.md.
   */
  upstreams?: McpModuleUpstream[];
}

/** Options that shape the module itself and so cannot come from an async factory. */
export interface McpModuleExtras {
  /** Where the MCP endpoint is served. Default `/mcp`; Nest's global prefix applies. */
  path: string;
  /** Register the module globally, so `MCPServer` can be injected anywhere. */
  isGlobal: boolean;
  /**
   * The name this server is injectable under (`@InjectMcpServer(name)`, `getMcpServerToken(name)`). `forRoot`
   * uses the server's `name`; give it to `forRootAsync`, whose options are not known before start-up.
   */
  name?: string;
  /**
   * Whether this server is the one `MCPServer` injects. Default true; with several servers, set it to false on
   * all but one (start-up fails when two servers claim it) and inject the others by name.
   */
  isDefault: boolean;
  /**
   * Serve a page at `<endpoint>/playground` that lists, calls and renders what this server offers, for
   * development (see docs/playground.md). Off by default, and refused at start-up when `NODE_ENV` is
   * `production` unless given as `{ enabled: true, allowInProduction: true }`.
   */
  playground: McpPlaygroundOption;
  /**
   * `forRootAsync` only: the `http.routeDecorators` (see `McpModuleHttpOptions`), which Nest reads with the
   * routes, before any factory runs; the rest of `http` comes from the factory.
   */
  http?: Pick<McpModuleHttpOptions, 'routeDecorators'>;
}

/**
 * The extras that shape the module itself (its controllers, its routes, where it is registered): read when the
 * module is defined, before any factory runs. `name` is not among them: it is also the server's own option; nor is
 * `http`, whose other options come from the factory.
 */
export type McpModuleDefinitionKey = Exclude<keyof McpModuleExtras, 'name' | 'http'>;

/**
 * What a `forRootAsync` factory returns: the options, with the module's extras refused (they go beside it).
 * `http.routeDecorators` stays in the type, as in `forRoot`'s options, so options typed `McpModuleOptions` can be
 * returned; given from the factory, start-up refuses them and says where they go.
 */
export type McpModuleFactoryOptions = McpModuleOptions & { [K in McpModuleDefinitionKey]?: never };

/** `McpModule.forRootAsync`'s options: how to make the options, and the extras beside it. */
export interface McpModuleAsyncOptions
  extends
    Omit<ConfigurableModuleAsyncOptions<McpModuleOptions>, 'useFactory' | 'useClass' | 'useExisting'>,
    Partial<McpModuleExtras> {
  useFactory?: (...args: any[]) => McpModuleFactoryOptions | Promise<McpModuleFactoryOptions>;
  useClass?: ConfigurableModuleAsyncOptions<McpModuleFactoryOptions>['useClass'];
  useExisting?: ConfigurableModuleAsyncOptions<McpModuleFactoryOptions>['useExisting'];
}
