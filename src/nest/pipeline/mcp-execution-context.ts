import type { ExecutionContext } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { InputResponses } from '../../protocol/mcp-types.js';
import type { McpContext } from '../../server/mcp-context.js';
import type { McpTransportKind } from '../../server/mcp-request-context.js';
import { McpParamtype } from './mcp-paramtype.enum.js';

/** The context type of an MCP handler in guards, interceptors and filters (`context.getType()`). */
export type McpContextType = 'mcp';

/**
 * An `ExecutionContext` seen from MCP, as `GqlExecutionContext` is for GraphQL:
 * `McpExecutionContext.create(context).getContext()` in a guard or interceptor is the call's `McpContext`.
 * `switchToHttp().getRequest()` keeps returning the HTTP request (over stdio, a stand-in: no headers, the
 * loopback address, the transport's principal as `user`); `getTransport()` tells the two apart.
 */
export class McpExecutionContext extends ExecutionContextHost {
  static create(context: ExecutionContext): McpExecutionContext {
    const mcpContext = new McpExecutionContext(context.getArgs(), context.getClass(), context.getHandler());
    mcpContext.setType(context.getType());
    return mcpContext;
  }

  /** The tool's arguments (a prompt's arguments, a template's variables); undefined while `tools/list` checks visibility. */
  getArgs<T = Record<string, unknown>>(): T {
    return this.getArgByIndex(McpParamtype.ARGS);
  }

  /** The call's `McpContext` (while `tools/list` checks visibility: the list request's). */
  getContext(): McpContext {
    return this.getArgByIndex(McpParamtype.CONTEXT);
  }

  getInputResponses(): InputResponses {
    return this.getArgByIndex(McpParamtype.INPUT_RESPONSES);
  }

  /** The transport's request object (Express or Fastify request over HTTP, the stand-in over stdio). */
  getHttpRequest<T = unknown>(): T {
    return this.getArgByIndex(McpParamtype.HTTP_REQUEST);
  }

  /**
   * `'http'` for a call that came in an HTTP request (a task it started included), `'stdio'` for one without
   * (stdio, in-process), `'queue'` for a round of a queued task on a worker: the call's `ctx.transport`.
   */
  getTransport(): McpTransportKind {
    return this.getContext().transport;
  }
}
