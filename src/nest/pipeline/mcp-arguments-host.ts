import type { InputResponses } from '../../protocol/mcp-types.js';
import type { McpContext } from '../../server/mcp-context.js';
import { McpCapturedResponse } from './mcp-captured-response.js';
import { stdioRequest } from './stdio-request.js';

/**
 * The argument list an MCP handler runs with inside Nest's pipeline, in `McpParamtype` order. The HTTP request
 * and a response come first, where HTTP-style guards, interceptors and filters look for them
 * (`context.switchToHttp()`): the request is the real one over HTTP and a stand-in over stdio, the response
 * records what a filter writes (it is undefined on the fast path, where no enhancer runs). `args` are a tool's
 * checked arguments, a prompt's arguments or a resource template's variables.
 */
export type McpArgumentsHost = [
  httpRequest: unknown,
  httpResponse: McpCapturedResponse | undefined,
  context: McpContext,
  args: unknown,
  uri: string | undefined,
  inputResponses: InputResponses,
];

/** The host a primitive's guards run against when they decide for a caller before any handler: no arguments. */
export function guardHostOf(context: McpContext): McpArgumentsHost {
  const request = context.httpRequest ?? stdioRequest(context);
  return [request, new McpCapturedResponse(), context, undefined, undefined, context.inputResponses];
}
