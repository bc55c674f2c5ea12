import type { McpAuthOptions } from '../auth/auth-options.js';
import type { McpHttpOptions } from '../http/mcp-http-options.js';
import type { McpCallEvent } from '../observability/call-events.js';
import type { OpenTelemetryOptions } from '../observability/open-telemetry.js';
import type { ServerTimeouts } from '../http/server-timeouts.js';
import type { McpServerOptions } from '../server/mcp-server-options.js';
import type { McpRoutesOptions } from './routes/route-tool-options.interface.js';

/** What the module adds around the kernel: logs, traces and metrics of every call. */
export interface McpObservabilityOptions {
  /** Log one line per failed call (JSON-RPC error or `isError` tool result) through Nest's Logger. Default true. */
  logFailedCalls?: boolean;
  /** Trace every call when `@opentelemetry/api` is installed. Default true; `false` never loads it. */
  telemetry?: boolean | OpenTelemetryOptions;
  /** Called once per call with its method, tool, outcome and duration: the hook for metrics. */
  onCall?: (event: McpCallEvent) => void;
}

/**
 * Options of `McpModule.forRoot` / `forRootAsync`. `name` and `version` are all a server needs; the rest have
 * secure defaults (loopback-only Host/Origin allowlist, 4 MiB bodies, a per-process request-state key). The module
 * logs through Nest's `Logger` (context `MCPServer`), so the kernel's `logger` option is not offered.
 */
export interface McpModuleOptions
  extends Omit<McpServerOptions, 'logger'>, Omit<McpHttpOptions, 'authenticator'>, McpObservabilityOptions {
  /** Makes the endpoint an OAuth 2.1 resource server (see docs/authorization.md). Off by default. */
  auth?: McpAuthOptions;
  /**
   * Modules whose providers' `@Tool`, `@Resource`, `@ResourceTemplate` and `@Prompt` methods this server
   * serves (their own providers, not those of their imports). Default: every module of the app.
   */
  include?: Function[];
  /** Leave tools out of `tools/list` for requests their guards deny (per tool: `@Tool({ hideWhenDenied })`). */
  hideDeniedTools?: boolean;
  /**
   * Timeouts set on Nest's HTTP server at start-up, where the application left Node's defaults. `false`
   * leaves the server alone (set them yourself with `applyServerTimeouts`).
   */
  serverTimeouts?: ServerTimeouts | false;
  /** Controller routes served as tools, besides those marked `@RouteTool` (see docs/route-tools.md). */
  routes?: McpRoutesOptions;
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
}
