import { SetMetadata } from '@nestjs/common';
import type { ClientCapabilities, ToolDefinition } from '../../protocol/mcp-types.js';
import type { UiToolMeta } from '../../protocol/extensions/apps.js';
import type { TaskSupport } from '../../server/registry/tool-registry.js';
import { MCP_TOOL_METADATA } from '../mcp-metadata.constants.js';
import { McpParamtype } from '../pipeline/mcp-paramtype.enum.js';
import type { McpSchema } from '../../server/schema/mcp-schema.js';
import { defaultMcpParams } from './params/mcp-param-decorator.factory.js';

/** For a guarded `@Tool`, `@Prompt`, `@Resource` or `@ResourceTemplate`. */
export interface HideWhenDeniedOption {
  /**
   * Leave the primitive out of every list for requests its guards deny, and answer a request naming it as for
   * one the server does not have (overrides the module's `hideForbidden`). A guard that throws something other
   * than an `HttpException` hides it as well, and is logged.
   */
  hideWhenDenied?: boolean;
}

export interface ToolOptions
  extends Omit<ToolDefinition, 'name' | 'inputSchema' | 'outputSchema'>, HideWhenDeniedOption {
  /** The tool's name (1-128 of `[A-Za-z0-9_.-]`); defaults to the method name. */
  name?: string;
  /** JSON Schema, zod schema or class-validator DTO class of the arguments; default: no arguments. */
  inputSchema?: McpSchema;
  /** When given, the result is validated against it and sent as `structuredContent` (plus a JSON text block). */
  outputSchema?: McpSchema;
  /** Client capabilities the tool cannot work without (-32021 when a request lacks one). */
  requiredCapabilities?: ClientCapabilities;
  /**
   * Accept each request state of the tool's input rounds once: a replayed retry gets -32602 before the method
   * runs. For a last round that must happen at most once (a deletion, a payment); see docs/input-required.md.
   */
  singleUseState?: boolean;
  /**
   * `false`: the arguments are not validated against `inputSchema`, which then only describes them (the method's
   * own pipes check them). Default true.
   */
  validateArguments?: boolean;
  /**
   * Run calls as tasks (SEP-2663) for clients that declared the tasks extension: they get a task id at once and
   * poll `tasks/get`. `required` also refuses clients without the extension (-32021). See docs/tasks.md.
   */
  taskSupport?: TaskSupport;
  /** With `taskSupport`: run in the request until the method calls `ctx.startTask()` (input rounds first). */
  deferTask?: boolean;
  /**
   * With `taskSupport` and tasks on a queue (`nestjs-mcp/bullmq`): how many times a task is run again from the
   * start when its worker is lost. Default 0: it ends `failed` instead (declare it only for idempotent work).
   */
  retry?: number;
  /**
   * The tool's UI (MCP Apps): the `ui://` resource (`@UiResource`) a host renders with its result, and who may
   * call it: `visibility: ['app']` for a tool only the UI calls (it keeps the tool's guards and scopes), `['model']`
   * for one the UI may not call; default both. The result still needs text for clients without UIs. See docs/apps.md.
   */
  ui?: UiToolMeta;
}

/**
 * Declares a provider method as an MCP tool. The explorer registers it at start-up with `MCPServer`, the same
 * registry `registerTool` feeds. Without parameter decorators the method receives `(args, inputResponses, ctx)`.
 */
export function Tool(options: ToolOptions = {}): MethodDecorator {
  return (target, key, descriptor) => {
    defaultMcpParams(target, key, [McpParamtype.ARGS, McpParamtype.INPUT_RESPONSES, McpParamtype.CONTEXT]);
    SetMetadata(MCP_TOOL_METADATA, options)(target, key, descriptor);
  };
}
