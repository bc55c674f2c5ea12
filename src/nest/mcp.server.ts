import { Inject, Injectable, Logger } from '@nestjs/common';
import { McpKernel } from '../server/mcp-kernel.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';

/**
 * The injectable MCP server: the transport-free kernel as a Nest provider. Inject it to register tools,
 * resources and prompts at run time, or to call `handleRequest` directly (tests, other transports).
 */
@Injectable()
export class MCPServer extends McpKernel {
  private readonly logger = new Logger('MCPServer');

  constructor(@Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions) {
    const errors = new Logger('MCPServer');
    super({
      onHandlerError: (error, { correlationId, method, name }) =>
        errors.error(`${method}${name ? ` "${name}"` : ''} failed (reference ${correlationId}): ${error instanceof Error ? error.message : String(error)}`, error instanceof Error ? error.stack : undefined),
      ...options,
    });
    if (this.usesGeneratedStateSecret) {
      this.logger.warn(
        `MCP server "${options.name}": no requestStateSecret configured, so multi-round request state is signed with a ` +
          'random per-process key. Deployments with several instances need a shared secret (McpModule option requestStateSecret).',
      );
    }
  }
}
