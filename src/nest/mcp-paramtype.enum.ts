import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';

/**
 * What an MCP handler parameter receives. The values index the arguments host a handler is called with (see
 * `McpArgumentsHost`): the HTTP request and a response at 0 and 1, where `switchToHttp()` finds them, and the
 * arguments at the index of an HTTP body, so pipes such as `ValidationPipe` treat them as one.
 */
export enum McpParamtype {
  HTTP_REQUEST = RouteParamtypes.REQUEST,
  HTTP_RESPONSE = RouteParamtypes.RESPONSE,
  INPUT_RESPONSES = 2,
  ARGS = RouteParamtypes.BODY,
  URI = 4,
  CONTEXT = 5,
}
