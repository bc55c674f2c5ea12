/** The configured endpoint path of one MCP server (before Nest's global prefix). */
export const MCP_ENDPOINT_PATH = Symbol('MCP_ENDPOINT_PATH');

/** Where the Express front layer leaves the body it read for the MCP route. */
export const MCP_PREPARED_BODY = Symbol('MCP_PREPARED_BODY');

/** The server's OAuth resource server (`OAuthResourceServer`), or null when the `auth` option is not set. */
export const MCP_RESOURCE_SERVER = Symbol('MCP_RESOURCE_SERVER');

/**
 * This server's kernel (`McpKernel`), for the transport layers of the module. Internal: users get `MCPServer`,
 * which exposes registration and in-process requests but not the transport-only methods (`dispatch`, `close`).
 */
export const MCP_KERNEL = Symbol('MCP_KERNEL');
