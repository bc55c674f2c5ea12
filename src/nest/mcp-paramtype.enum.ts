/**
 * What an MCP handler parameter receives. The values index the arguments host a handler is called with (see
 * `McpArgumentsHost`), so a guard's `switchToHttp().getRequest()` (index 0) is the HTTP request.
 */
export enum McpParamtype {
  HTTP_REQUEST = 0,
  ARGS = 1,
  CONTEXT = 2,
  INPUT_RESPONSES = 3,
  URI = 4,
}
