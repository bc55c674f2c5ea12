import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { callEventInterceptor } from '../observability/call-events.js';
import { loadOpenTelemetryInterceptor } from '../observability/open-telemetry.js';
import { McpKernel } from '../server/mcp-kernel.js';
import { callLoggingInterceptor } from './mcp-call.logger.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';

/**
 * The injectable MCP server: the transport-free kernel as a Nest provider. Inject it to register tools,
 * resources and prompts at run time, or to call `handleRequest` directly (tests, other transports).
 */
@Injectable()
export class MCPServer extends McpKernel implements OnModuleInit {
  private readonly logger = new Logger('MCPServer');

  constructor(@Inject(MCP_MODULE_OPTIONS) private readonly moduleOptions: McpModuleOptions) {
    super(moduleOptions);
    if (this.usesGeneratedStateSecret) {
      this.logger.warn(
        `MCP server "${moduleOptions.name}": no requestStateSecret configured, so multi-round request state is signed with a ` +
          'random per-process key. Deployments with several instances need a shared secret (McpModule option requestStateSecret).',
      );
    }
    if (moduleOptions.logFailedCalls !== false) this.intercept(callLoggingInterceptor(this.logger));
    if (moduleOptions.onCall) this.intercept(callEventInterceptor(moduleOptions.onCall));
  }

  /** Tracing goes outermost, so its span covers the logging and metrics work too. */
  async onModuleInit(): Promise<void> {
    const telemetry = this.moduleOptions.telemetry ?? true;
    if (telemetry === false) return;
    const tracing = await loadOpenTelemetryInterceptor(telemetry === true ? {} : telemetry);
    if (tracing) this.intercept(tracing);
  }
}
