import type { McpHttpOptions } from '../http/mcp-http.driver.js';
import type { ServerTimeouts } from '../http/server-timeouts.js';
import type { McpServerOptions } from '../server/mcp-kernel.js';

/**
 * Options of `McpModule.forRoot` / `forRootAsync`. `name` and `version` are all a server needs; the rest have
 * secure defaults (loopback-only Host/Origin allowlist, 4 MiB bodies, a per-process request-state key).
 */
export interface McpModuleOptions extends McpServerOptions, McpHttpOptions {
  /**
   * Timeouts set on Nest's HTTP server at start-up, where the application left Node's defaults. `false`
   * leaves the server alone (set them yourself with `applyServerTimeouts`).
   */
  serverTimeouts?: ServerTimeouts | false;
}

/** Options that shape the module itself and so cannot come from an async factory. */
export interface McpModuleExtras {
  /** Where the MCP endpoint is served. Default `/mcp`; Nest's global prefix applies. */
  path: string;
  /** Register the module globally, so `MCPServer` can be injected anywhere. */
  isGlobal: boolean;
}
