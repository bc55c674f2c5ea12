/** The configured endpoint path of one MCP server (before Nest's global prefix). */
export const MCP_ENDPOINT_PATH = Symbol('MCP_ENDPOINT_PATH');

/** The server's OAuth resource server (`OAuthResourceServer`), or null when the `auth` option is not set. */
export const MCP_RESOURCE_SERVER = Symbol('MCP_RESOURCE_SERVER');

/** What this server's Server Card routes publish (`PublishedServerCard`), or null when the card is not served. */
export const MCP_SERVER_CARD = Symbol('MCP_SERVER_CARD');

/**
 * This server's kernel (`McpKernel`), for the transport layers of the module. Internal: users get `MCPServer`,
 * which exposes registration and in-process requests but not the transport-only methods (`dispatch`, `close`).
 */
export const MCP_KERNEL = Symbol('MCP_KERNEL');

/** This module's `MCPServer` instance; the public tokens (`MCPServer`, `getMcpServerToken(name)`) alias it. */
export const MCP_SERVER = Symbol('MCP_SERVER');

/** The one `Logger` a server's module writes through (context `MCPServer`). */
export const MCP_LOGGER = Symbol('MCP_LOGGER');

/** Whether this server is the default one (provides the `MCPServer` class token). */
export const MCP_IS_DEFAULT = Symbol('MCP_IS_DEFAULT');

/** This server's controller class, which the module marks with its version before routes are registered. */
export const MCP_CONTROLLER = Symbol('MCP_CONTROLLER');

/** This server's playground controller class, or null when the playground is off. */
export const MCP_PLAYGROUND_CONTROLLER = Symbol('MCP_PLAYGROUND_CONTROLLER');

/** The `http.routeDecorators` already on this server's controllers, checked at start-up (`checkRouteEnhancers`). */
export const MCP_ROUTE_DECORATORS = Symbol('MCP_ROUTE_DECORATORS');

/** The upstream servers this server mounts (`upstreams`), or null without any. */
export const MCP_UPSTREAMS = Symbol('MCP_UPSTREAMS');
