/** Reflect-metadata keys of the MCP decorators. */
export const MCP_TOOL_METADATA = 'mcp:tool';
export const MCP_RESOURCE_METADATA = 'mcp:resource';
export const MCP_RESOURCE_TEMPLATE_METADATA = 'mcp:resource-template';
export const MCP_PROMPT_METADATA = 'mcp:prompt';
/** Where MCP parameter decorators record their parameters (read by Nest's ExternalContextCreator). */
export const MCP_PARAM_ARGS_METADATA = 'mcp:param-args';
