import { ErrorCode } from '../../protocol/error-codes.js';
import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { CallToolResult, ListToolsResult, TextContent } from '../../protocol/mcp-types.js';
import type { CreateTaskResult } from '../../protocol/extensions/tasks.js';
import { StartTask } from '../task-run.js';
import { checkParamHeaders } from '../../protocol/param-headers.js';
import { clientCapabilitiesOf, missingCapabilities } from '../input/client-capabilities.js';
import { isContentBlock, renderText } from '../content.js';
import type { HandlerFailure } from '../failures/handler-failure.js';
import type { InputRound } from '../input/input-round.js';
import type { StateBinding } from '../input/request-state-codec.js';
import type { McpContext } from '../mcp-context.js';
import { InputRequired } from '../input-required.js';
import { MAX_JSON_DEPTH, containerFault } from '../../protocol/json-limits.js';
import type { Caller } from '../access/caller-identity.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import type { Cacheable, InterimResult } from '../method-result.js';
import type { Visibility } from '../registry/visibility.js';
import type { ToolCallMode, ToolTasks, ToolSettlement } from '../tasks/tool-tasks.js';
import type { QueuedTask } from '../tasks/task-queue.js';
import type { ToolEntry, ToolRegistry } from '../registry/tool-registry.js';
import type { SchemaCheck, SchemaOutcome } from '../schema/schema-check.js';
import { listPage } from './list-page.js';
import { whenReady } from '../util/when-ready.js';

type ToolCallAnswer = CallToolResult | InterimResult | CreateTaskResult;

/** A `tools/call` whose handler failed or that runs as a task: what those slower paths need of it. */
interface ToolCall {
  readonly request: JsonRpcRequest;
  readonly transport: McpRequestContext;
  readonly caller: Caller;
  /** Its name is `entry.definition.name`: each member here costs every call a store. */
  readonly entry: ToolEntry;
  /** As sent: what the request-state binding holds and a task's record keeps. */
  readonly args: Record<string, unknown>;
  readonly mode: ToolCallMode;
}

function toolCall(
  request: JsonRpcRequest,
  transport: McpRequestContext,
  caller: Caller,
  entry: ToolEntry,
  args: Record<string, unknown>,
  mode: ToolCallMode,
): ToolCall {
  return { request, transport, caller, entry, args, mode };
}

/** A failed call the model can read and react to (a tool error is a result, not a JSON-RPC error). */
export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** `tools/list` and `tools/call`. */
export class ToolMethods {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly round: InputRound,
    private readonly failure: HandlerFailure,
    private readonly tasks: ToolTasks,
    private readonly visibility: Visibility,
  ) {}

  list(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<ListToolsResult>> {
    return listPage(this.tools.size > 0, 'tools', this.tools.listing, this.visibility, request, transport);
  }

  /**
   * Synchronous up to the first step that is not: a sync validator and handler answer without a microtask.
   * A refusal before the handler runs is thrown (the kernel's call guard turns it into the error response).
   */
  call(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
  ): ToolCallAnswer | Promise<ToolCallAnswer> {
    const params = request.params ?? {};
    if (typeof params.name !== 'string') throw McpError.invalidParams('Invalid params: "name" must be a string');
    const name = params.name;
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isPlainObject(args)) throw McpError.invalidParams('Invalid params: "arguments" must be an object');
    const fault = containerFault(args, 1, MAX_JSON_DEPTH);
    if (fault !== undefined) throw McpError.invalidParams(fault === 'too-deep' ? TOO_DEEP : NON_FINITE);
    const entry = this.tools.get(name);
    if (!entry) return toolError('Tool not found');
    // Asked only of a tool that needs scopes: one that needs none is allowed to everyone.
    if (entry.requiredScopes && !this.visibility.gate.allows(entry.requiredScopes, transport.scopes, 'tool', name))
      return toolError('Tool not found');
    // A tool hidden from this caller is answered as one that does not exist, like one hidden by its scopes.
    if (entry.visible)
      return this.visibility
        .admits(entry, 'tool', name, request, transport)
        .then((seen) => (seen ? this.start(request, transport, caller, entry, args) : toolError('Tool not found')));
    return this.start(request, transport, caller, entry, args);
  }

  private start(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
    entry: ToolEntry,
    args: Record<string, unknown>,
  ): ToolCallAnswer | Promise<ToolCallAnswer> {
    const name = entry.definition.name;
    if (transport.headers && entry.paramHeaders.length > 0) {
      const mismatch = checkParamHeaders(entry.paramHeaders, args, transport.headers);
      if (mismatch) throw new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
    }
    // Read only for a tool that requires capabilities: most require none.
    const clientCapabilities = entry.requiredCapabilities && clientCapabilitiesOf(request);
    if (entry.requiredCapabilities && clientCapabilities) {
      const missing = missingCapabilities(entry.requiredCapabilities, clientCapabilities);
      if (missing) throw McpError.missingCapabilities(missing);
    }

    // Most tools never run as tasks: their mode is known without asking.
    const mode = entry.taskSupport === undefined ? 'request' : this.tasks.mode(entry, request);
    const binding = this.round.binding(request.method, name, args, transport, caller);
    const made = this.round.context(request, transport, binding, entry.singleUseState, mode === 'deferred');
    // `context` answers a native promise when it cannot answer at once: asked without a call to `isThenable`.
    if (made instanceof Promise)
      return made.then((context) =>
        this.invoke(request, transport, caller, entry, args, binding, mode, context, entry.input(args)),
      );
    // The arguments checked against the input schema as they are: the binding holds them as sent, as a client resends them.
    return this.invoke(request, transport, caller, entry, args, binding, mode, made, entry.input(args));
  }

  /**
   * The handler run on the checked arguments. Positional rather than one record of the call: a synchronous
   * validator and handler then cost no object and no closure, and each member of a record costs every call a store.
   */
  private invoke(
    request: JsonRpcRequest,
    transport: McpRequestContext,
    caller: Caller,
    entry: ToolEntry,
    args: Record<string, unknown>,
    binding: StateBinding,
    mode: ToolCallMode,
    context: McpContext,
    checking: SchemaOutcome | Promise<SchemaOutcome>,
  ): ToolCallAnswer | Promise<ToolCallAnswer> {
    // `isThenable` spelled out, here and for the handler's value: a call less on each step of every call.
    if (typeof (checking as Partial<PromiseLike<SchemaOutcome>>).then === 'function')
      return Promise.resolve(checking).then((outcome) =>
        this.invoke(request, transport, caller, entry, args, binding, mode, context, outcome),
      );
    const checked = checking as SchemaOutcome;
    if (checked.error !== undefined) return toolError(checked.error);
    const input = checked.value as Record<string, unknown>;
    if (mode === 'task') return this.startTask(toolCall(request, transport, caller, entry, args, mode), context, input);
    let value: unknown;
    try {
      value = entry.handler(input, context.inputResponses, context);
    } catch (error) {
      return this.failed(toolCall(request, transport, caller, entry, args, mode), binding, context, input, error);
    }
    // Spelled out rather than `returned`: most handlers answer at once, and a call less is spent on each.
    if (typeof (value as Partial<PromiseLike<unknown>> | null | undefined)?.then !== 'function')
      return value instanceof InputRequired
        ? this.round.interim(value, context, binding, request)
        : toolResult(value, entry.output);
    return Promise.resolve(value as PromiseLike<unknown>).then(
      (returned) => this.returned(request, entry, binding, context, returned),
      (error: unknown) =>
        this.failed(toolCall(request, transport, caller, entry, args, mode), binding, context, input, error),
    );
  }

  private returned(
    request: JsonRpcRequest,
    entry: ToolEntry,
    binding: StateBinding,
    context: McpContext,
    value: unknown,
  ): ToolCallAnswer | Promise<ToolCallAnswer> {
    return value instanceof InputRequired
      ? this.round.interim(value, context, binding, request)
      : toolResult(value, entry.output);
  }

  private failed(
    call: ToolCall,
    binding: StateBinding,
    context: McpContext,
    input: Record<string, unknown>,
    error: unknown,
  ): ToolCallAnswer | Promise<ToolCallAnswer> {
    if (error instanceof StartTask && call.mode === 'deferred') return this.startTask(call, context, input);
    if (error instanceof InputRequired) return this.round.interim(error, context, binding, call.request);
    if (error instanceof McpError) throw error;
    return toolError(`Error: ${this.failure.message(error, call.request, call.entry.definition.name, call.transport)}`);
  }

  private startTask(
    call: ToolCall,
    context: McpContext,
    input: Record<string, unknown>,
  ): ToolCallAnswer | Promise<ToolCallAnswer> {
    const { entry, request } = call;
    return this.tasks.start(
      entry,
      input,
      context,
      call.caller,
      // The request's transport: a call the shortcut answers in it reports its failure to its interceptors.
      this.settlement(request, entry.definition.name, entry.output, call.transport),
      call.args,
    );
  }

  /** One round of a queued task, on the worker that took it (see `McpKernel.runQueuedTask`). */
  runQueued(job: QueuedTask, restarts: number): Promise<void> {
    return this.tasks.resume(job, restarts, (call) => {
      const entry = this.tools.get(call.tool);
      if (!entry) return undefined;
      const params = { name: call.tool, arguments: call.arguments, _meta: call.meta };
      const request: JsonRpcRequest = { jsonrpc: '2.0', id: call.requestId, method: 'tools/call', params };
      return { entry, settle: this.settlement(request, call.tool, entry.output) };
    });
  }

  /**
   * How a task's handler outcome becomes its result. `transport` is the request's when the call may yet be
   * answered in it (the immediate-result shortcut); a queued round has none.
   */
  private settlement(
    request: JsonRpcRequest,
    name: string,
    output: SchemaCheck | undefined,
    transport: McpRequestContext = {},
  ): ToolSettlement {
    return {
      result: (value) => toolResult(value, output),
      failure: (error) => toolError(`Error: ${this.failure.message(error, request, name, transport)}`),
    };
  }
}

// Arguments are walked before they are bound, hashed or validated (prompt arguments are flat strings already).
const TOO_DEEP = `Invalid params: "arguments" nest deeper than ${MAX_JSON_DEPTH} levels`;
const NON_FINITE = 'Invalid params: "arguments" hold a number that is not finite (JSON numbers must be)';

/**
 * What a tool handler returned, as a `tools/call` result: with an outputSchema, its `structuredContent` is the
 * checked value (a zod output schema's parse: unknown keys stripped, defaults filled).
 */
function toolResult(value: unknown, output: SchemaCheck | undefined): CallToolResult | Promise<CallToolResult> {
  // A plain value is most tools' answer: its text (as `renderText` has it), without asking what else it might be.
  if (!output && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) {
    // Built a level at a time: the interpreter copies a nested literal through its allocation sites, at more
    // than twice the cost of three flat ones.
    const block: TextContent = { type: 'text', text: typeof value === 'string' ? value : String(value) };
    const content = [block];
    return { content };
  }
  if (isPlainObject(value) && Array.isArray(value.content)) {
    const result = { ...value } as unknown as CallToolResult;
    if (!output || result.isError) return result;
    return whenReady(output(result.structuredContent), (checked) => {
      if (checked.error !== undefined) return outputMismatch(checked.error);
      result.structuredContent = checked.value as CallToolResult['structuredContent'];
      return result;
    });
  }
  if (output) {
    return whenReady(output(value), (checked) =>
      checked.error !== undefined
        ? outputMismatch(checked.error)
        : { content: [{ type: 'text', text: renderText(checked.value) }], structuredContent: checked.value },
    );
  }
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return { content: value };
  if (isContentBlock(value)) return { content: [value] };
  if (value === undefined || value === null) return { content: [] };
  return { content: [{ type: 'text', text: renderText(value) }] };
}

function outputMismatch(reason: string): CallToolResult {
  return toolError(`Error: output does not match the tool's outputSchema: ${reason}`);
}
