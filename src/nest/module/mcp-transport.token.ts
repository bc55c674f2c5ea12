import type { McpKernel } from '../../server/kernel/mcp-kernel.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';

/** What a transport started outside the module (stdio) needs of one server: its kernel and its module's options. */
export interface McpTransportTarget {
  readonly kernel: McpKernel;
  readonly options: McpModuleOptions;
  /** The endpoint's path as the module declares it (before the global prefix). */
  readonly path: string;
}

/**
 * The token of the server named `name` (without a name: the default server) for such a transport. Internal,
 * like `MCP_KERNEL`; unlike it, one token per server, so an app with several servers resolves the one it means.
 */
export function getMcpTransportToken(name?: string): string {
  return name ? `McpTransport:${name}` : 'McpTransport';
}
