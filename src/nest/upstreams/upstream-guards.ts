import { ForbiddenException, HttpException, type CanActivate, type LoggerService, type Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { FORBIDDEN_MESSAGE } from '@nestjs/core/guards/constants.js';
import { GuardsConsumer } from '@nestjs/core/guards/guards-consumer.js';
import { McpError } from '../../protocol/mcp-error.js';
import { ToolError } from '../../server/errors/tool-error.js';
import type { McpContext } from '../../server/mcp-context.js';
import type { Visible } from '../../server/registry/visibility.js';
import type { UpstreamGate } from '../../server/upstreams/upstream-gateway.js';
import { httpErrorText } from '../http-error-text.js';
import { VISIBILITY_GUARD_FAILED } from '../mcp-messages.js';
import { guardHostOf } from '../pipeline/mcp-arguments-host.js';
import type { McpContextType } from '../pipeline/mcp-execution-context.js';

const MCP_CONTEXT: McpContextType = 'mcp';

/** What `ExecutionContext.getClass()` and `getHandler()` give a guard run for a mounted primitive. */
class MountedUpstream {
  call(): void {}
}

/**
 * The guards of one `upstreams` entry, built once with McpModule's providers (as `moduleRef.create` builds a
 * class), run as Nest runs a route's guards: `canActivate` with an execution context of type `'mcp'` whose
 * request is the call's HTTP request (over stdio, the stand-in one), a thrown `HttpException` or `false`
 * refusing the call as it refuses a local tool.
 */
export async function upstreamGuards(
  moduleRef: ModuleRef,
  guards: ReadonlyArray<Type<CanActivate> | CanActivate>,
  what: string,
  logger: LoggerService,
): Promise<{ gate: UpstreamGate; visible: Visible }> {
  const instances = await Promise.all(
    guards.map((guard) => (typeof guard === 'function' ? moduleRef.create(guard) : Promise.resolve(guard))),
  );
  const consumer = new GuardsConsumer();
  const instance = new MountedUpstream();
  const passes = (context: McpContext): Promise<boolean> => {
    const host = guardHostOf(context);
    return consumer.tryActivate(instances, host, instance, instance.call, MCP_CONTEXT);
  };
  const gate: UpstreamGate = async (context, kind) => {
    let allowed: boolean;
    try {
      allowed = await passes(context);
    } catch (error) {
      throw refusal(error, kind);
    }
    if (!allowed) throw refusal(new ForbiddenException(FORBIDDEN_MESSAGE), kind);
  };
  const visible: Visible = (context) =>
    passes(context).catch((error: unknown) => {
      if (!(error instanceof HttpException))
        logger.error(VISIBILITY_GUARD_FAILED(what), error instanceof Error ? error.stack : String(error));
      return false;
    });
  return { gate, visible };
}

/** A guard's refusal as a local primitive's: a tool error result for a tool, invalid params otherwise. */
function refusal(error: unknown, kind: 'tool' | 'prompt' | 'resource'): unknown {
  if (!(error instanceof HttpException)) return error;
  const message = httpErrorText(error.getResponse(), error.message);
  return kind === 'tool' ? new ToolError(message) : McpError.invalidParams(`Error: ${message}`);
}
