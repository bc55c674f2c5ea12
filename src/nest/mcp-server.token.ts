import { MCPServer } from './mcp.server.js';

/**
 * The injection token of the MCP server named `name` (the `name` given to `McpModule.forRoot`, or the `name`
 * extra of `forRootAsync`). Without a name: the default server, whose token is the `MCPServer` class itself.
 */
export function getMcpServerToken(name?: string): string | typeof MCPServer {
  return name ? `MCPServer:${name}` : MCPServer;
}
