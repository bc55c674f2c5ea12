// Protocol: JSON-RPC and MCP types, error codes, versions, the classifier.
export * from './protocol/error-codes.js';
export * from './protocol/jsonrpc.js';
export * from './protocol/mcp-types.js';
export { McpError } from './protocol/mcp-error.js';
export {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  META_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
} from './protocol/versions.js';
export { classifyMessage, classifyHttpRequest, type MessageVerdict } from './protocol/classifier.js';

// Server: the transport-free kernel and what handlers use.
export { McpKernel, type McpServerOptions, type McpRequestContext } from './server/mcp-kernel.js';
export { McpContext, type ProgressUpdate, type SampleOptions } from './server/mcp-context.js';
export { InputRequired, inputRequired, type InputRequiredOptions } from './server/input-required.js';
export { Content } from './server/content.js';
export { ToolError } from './server/tool-error.js';
export type { HandlerErrorLogger, HandlerErrorReport } from './server/handler-error.policy.js';
export type { ToolHandler, ToolRegistration } from './server/tool.registry.js';
export type {
  ResourceHandler,
  ResourceRegistration,
  ResourceTemplateRegistration,
  ResourceReadValue,
  Completer,
} from './server/resource.registry.js';
export type { PromptHandler, PromptRegistration, PromptValue } from './server/prompt.registry.js';
export { InProcessEventBus, type McpEvent, type McpEventBus } from './server/event-bus.js';

// HTTP: the Streamable HTTP driver, for use outside Nest or behind another framework.
export { McpHttpDriver, type McpHttpOptions } from './http/mcp-http.driver.js';
export { LOOPBACK_HOSTS, type HostOriginOptions } from './http/host-origin.policy.js';
export { applyServerTimeouts, type ServerTimeouts } from './http/server-timeouts.js';
export { isLoopbackHost, publicBindError } from './http/bind-address.js';

// Nest: the module and the injectable server.
export { McpModule } from './nest/mcp.module.js';
export { MCPServer } from './nest/mcp.server.js';
export { MCP_MODULE_OPTIONS } from './nest/mcp.module-definition.js';
export type { McpModuleOptions, McpModuleExtras } from './nest/mcp-module-options.interface.js';
