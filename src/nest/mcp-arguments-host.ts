import type { InputResponses } from '../protocol/mcp-types.js';
import type { McpContext } from '../server/mcp-context.js';

/**
 * The argument list an MCP handler runs with inside Nest's pipeline, in `McpParamtype` order. The HTTP request
 * comes first, where HTTP-style guards and interceptors look for it (`context.switchToHttp().getRequest()`).
 * `args` are a tool's validated arguments, a prompt's arguments or a resource template's variables.
 */
export type McpArgumentsHost = [
  httpRequest: unknown,
  context: McpContext,
  inputResponses: InputResponses,
  args: unknown,
  uri: string | undefined,
];
