import { Catch, Inject, UnauthorizedException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpDriver } from '../../http/mcp-http-driver.js';

/**
 * On the MCP route only: an app-wide auth guard (passport's `AuthGuard('jwt')`, its own `JwtAuthGuard`) that
 * refuses a request answers with Nest's bare 401, which tells an MCP client neither where to get a token nor
 * whether its token expired. This turns that refusal into the MCP 401 challenge. The app's own filters never
 * see it: a controller's filter is consulted before global ones.
 */
@Catch(UnauthorizedException)
export class McpUnauthorizedFilter implements ExceptionFilter {
  constructor(@Inject(McpHttpDriver) private readonly driver: McpHttpDriver) {}

  catch(_exception: UnauthorizedException, host: ArgumentsHost): Promise<void> {
    const http = host.switchToHttp();
    const req = http.getRequest<IncomingMessage & { raw?: IncomingMessage }>();
    const res = http.getResponse<ServerResponse & { raw?: ServerResponse }>();
    return this.driver.refuseUnauthenticated(req.raw ?? req, res.raw ?? res);
  }
}
