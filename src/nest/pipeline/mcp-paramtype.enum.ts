import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';

/**
 * What an MCP handler parameter receives. The values index the arguments host a handler is called with (see
 * `McpArgumentsHost`): the HTTP request and a response at 0 and 1, where `switchToHttp()` finds them, and the
 * arguments at the index of an HTTP body, so pipes such as `ValidationPipe` treat them as one. The context sits
 * where pipes see a custom parameter (2): at a body, query or param index a global `ValidationPipe` would walk it
 * (it holds the HTTP request, which refers back to itself) whenever `McpContext` is the declared type.
 */
export enum McpParamtype {
  HTTP_REQUEST = RouteParamtypes.REQUEST,
  HTTP_RESPONSE = RouteParamtypes.RESPONSE,
  CONTEXT = 2,
  ARGS = RouteParamtypes.BODY,
  URI = 4,
  INPUT_RESPONSES = 5,
}
