import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { callEventInterceptor } from '../observability/call-events.js';
import { loadOpenTelemetryInterceptor } from '../observability/open-telemetry.js';
import type { HandlerErrorReport } from '../server/handler-error.policy.js';
import type { McpCall } from '../server/mcp-call.js';
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
    // With the call logger on, an unexpected handler error is its one line (same reference id); without it, this.
    super({ onHandlerError: moduleOptions.logFailedCalls === false ? logHandlerError : reportedByCallLogger, ...moduleOptions });
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

  /** The failed-call logger may be the interceptor that threw, or have seen the call before another did. */
  protected interceptorFailed(error: unknown, call: McpCall): void {
    logHandlerError(error, { correlationId: this.correlationId(), method: call.method, name: call.name ?? call.uri, requestId: call.requestId });
  }
}

const handlerErrors = new Logger('MCPServer');

function reportedByCallLogger(): void {}

/** The server-side half of a redacted handler error: the detail and stack, under the client's reference. */
function logHandlerError(error: unknown, { correlationId, method, name }: HandlerErrorReport): void {
  const what = `${method}${name ? ` "${name}"` : ''}`;
  const message = error instanceof Error ? error.message : String(error);
  handlerErrors.error(`${what} failed (reference ${correlationId}): ${message}`, error instanceof Error ? error.stack : undefined);
}
