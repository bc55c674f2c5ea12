import { extractParamHeaderRules, type ParamHeaderRule } from '../../protocol/param-headers.js';
import type { UiToolMeta } from '../../protocol/extensions/apps.js';
import type { ClientCapabilities, InputResponses, JsonSchema, ToolDefinition } from '../../protocol/mcp-types.js';
import { checkToolUi, withToolUi } from '../apps/tool-ui.js';
import type { ListChangeListener } from '../events/event-bus.js';
import type { McpContext } from '../mcp-context.js';
import { checkPrimitiveName } from './registry-rules.js';
import { PagedList } from './paged-list.js';
import { checkRequiredScopes } from '../access/required-scopes.js';
import type { Visible } from './visibility.js';
import type { CompiledSchema, SchemaCompiler } from '../schema/schema-compiler.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import {
  DEFER_TASK_WITHOUT_SUPPORT,
  INVALID_TASK_RETRY,
  DUPLICATE_NAME,
  HANDLER_NOT_A_FUNCTION,
  INPUT_SCHEMA_NOT_OBJECT,
  INVALID_TASK_SUPPORT,
  REGISTRATION_FAILED,
} from '../errors/configuration-messages.js';
import type { SchemaCheck } from '../schema/schema-check.js';

export type ToolHandler<A = any> = (args: A, inputResponses: InputResponses, context: McpContext) => unknown;

/** A complete tool declaration: the published definition plus how to run it. */
export interface ToolRegistration extends ToolDefinition {
  handler: ToolHandler;
  /** Client capabilities the tool cannot work without: a request lacking one gets -32021 before the handler runs. */
  requiredCapabilities?: ClientCapabilities;
  /** Each request state of this tool's rounds is accepted once (see `RequestStateStore`); a replay gets -32602. */
  singleUseState?: boolean;
  /** Decides per request whether the caller sees the tool (e.g. hidden from callers a guard would deny). */
  visible?: Visible;
  /** OAuth scopes a caller needs: without all of them the tool is hidden from lists and a call gets 403. */
  requiredScopes?: string[];
  /**
   * `false`: the handler validates its arguments itself and the inputSchema only describes them (a route tool,
   * whose route's pipes answer with the route's own messages). Default true.
   */
  validateArguments?: boolean;
  /** Run calls from clients that declared the tasks extension as tasks; see `TaskSupport`. */
  taskSupport?: TaskSupport;
  /**
   * With `taskSupport`: the handler runs in the request first (input rounds work as for any tool) and the call
   * becomes a task where it calls `ctx.startTask()`; without that call, it is answered in its request.
   */
  deferTask?: boolean;
  /**
   * With `taskSupport` and a task queue (`tasks.queue`): how many times a task of this tool is run again from
   * the start when the worker running it is lost (killed, crashed, stalled). Default 0: the task ends `failed`
   * instead, since a tool that is not idempotent must not run twice. At most 100.
   */
  retry?: number;
  /**
   * The tool's UI (MCP Apps): the `ui://` resource a host renders with its result, and who may call it
   * (`visibility`: `['model']`, `['app']` for a tool only the UI calls, default both). Published in `_meta.ui`.
   */
  ui?: UiToolMeta;
}

/**
 * Whether a call may run as a task (SEP-2663) when the client declared the tasks extension: `optional` lets the
 * server answer with a task (it does, for a declaring client), `required` also refuses other clients (-32021).
 * The spec keeps this off the wire: `tools/list` does not show it.
 */
export type TaskSupport = 'optional' | 'required';

/** What `registerTool` takes besides the name, description, input schema and handler. */
export type ToolRegistrationOptions = Omit<ToolRegistration, 'name' | 'description' | 'inputSchema' | 'handler'>;

export interface ToolEntry {
  readonly definition: ToolDefinition;
  readonly handler: ToolHandler;
  /** The arguments as the handler receives them, or why they are refused. */
  readonly input: SchemaCheck;
  /** The result's `structuredContent`, when the tool has an outputSchema. */
  readonly output?: SchemaCheck;
  readonly paramHeaders: readonly ParamHeaderRule[];
  readonly requiredCapabilities?: ClientCapabilities;
  readonly singleUseState?: boolean;
  readonly visible?: Visible;
  readonly requiredScopes?: readonly string[];
  readonly taskSupport?: TaskSupport;
  readonly deferTask: boolean;
  readonly retry?: number;
  readonly ui?: UiToolMeta;
}

/** Tools by name, in registration order, with everything a call needs compiled at registration. */
export class ToolRegistry {
  private readonly entries = new Map<string, ToolEntry>();
  private taskTools = 0;
  private uiTools = 0;
  readonly listing: PagedList<ToolDefinition>;

  constructor(
    private readonly schemas: SchemaCompiler,
    pageSize: number,
    private readonly onChange: ListChangeListener,
  ) {
    this.listing = new PagedList(
      () => [...this.entries.values()].map((e) => e.definition),
      pageSize,
      'tools',
      (d) => this.entries.get(d.name),
    );
  }

  get size(): number {
    return this.entries.size;
  }

  get(name: string): ToolEntry | undefined {
    return this.entries.get(name);
  }

  /** True when some tool may run as a task: the server then advertises the tasks extension. */
  get hasTaskTools(): boolean {
    return this.taskTools > 0;
  }

  /** True when some tool has a UI: the server then advertises the MCP Apps extension. */
  get hasUiTools(): boolean {
    return this.uiTools > 0;
  }

  /** The tools that have a UI, for checking that each names a UI resource. */
  *withUi(): Generator<ToolEntry & { ui: UiToolMeta }> {
    for (const entry of this.entries.values()) if (entry.ui) yield entry as ToolEntry & { ui: UiToolMeta };
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /**
   * `checks` replace the JSON Schema validation of a schema that validates itself (a Standard Schema): its
   * JSON Schema is still compiled, which refuses one ajv cannot use at registration rather than on a call.
   */
  add(registration: ToolRegistration, checks: ToolSchemaChecks = {}): void {
    const {
      handler,
      requiredCapabilities,
      singleUseState,
      visible,
      requiredScopes,
      taskSupport,
      deferTask,
      retry,
      ui,
      validateArguments,
      ...definition
    } = registration;
    const name = definition.name;
    checkPrimitiveName('tool', name);
    if (this.entries.has(name)) throw new McpConfigurationError(DUPLICATE_NAME('Tool', name));
    if (typeof handler !== 'function') throw new McpConfigurationError(HANDLER_NOT_A_FUNCTION(`Tool "${name}"`));
    if (taskSupport !== undefined && taskSupport !== 'optional' && taskSupport !== 'required') {
      throw new McpConfigurationError(INVALID_TASK_SUPPORT(name, taskSupport));
    }
    if (deferTask && taskSupport === undefined) throw new McpConfigurationError(DEFER_TASK_WITHOUT_SUPPORT(name));
    if (retry !== undefined && (taskSupport === undefined || !Number.isInteger(retry) || retry < 0 || retry > 100))
      throw new McpConfigurationError(INVALID_TASK_RETRY(name, retry));
    if (ui !== undefined) {
      checkToolUi(name, ui);
      definition._meta = withToolUi(definition._meta, ui);
    }
    const inputSchema = definition.inputSchema as JsonSchema;
    if (typeof inputSchema !== 'object' || inputSchema === null || inputSchema.type !== 'object') {
      throw new McpConfigurationError(INPUT_SCHEMA_NOT_OBJECT(name));
    }
    let paramHeaders: ParamHeaderRule[];
    try {
      paramHeaders = extractParamHeaderRules(inputSchema);
    } catch (error) {
      throw new McpConfigurationError(REGISTRATION_FAILED(`Tool "${name}"`, (error as Error).message), {
        cause: error,
      });
    }
    const entry: ToolEntry = {
      definition: stripUndefined(definition),
      handler,
      input:
        validateArguments === false
          ? (value: unknown) => ({ value })
          : checkOf(this.schemas.compile(inputSchema, `Tool "${name}" inputSchema`), checks.input),
      output: definition.outputSchema
        ? checkOf(this.schemas.compile(definition.outputSchema, `Tool "${name}" outputSchema`), checks.output)
        : undefined,
      paramHeaders,
      requiredCapabilities,
      singleUseState,
      visible,
      requiredScopes: checkRequiredScopes(`Tool "${name}"`, requiredScopes),
      taskSupport,
      deferTask: deferTask === true,
      retry,
      ui,
    };
    this.entries.set(name, entry);
    if (taskSupport) this.taskTools++;
    if (ui) this.uiTools++;
    this.changed(entry.requiredScopes);
  }

  remove(name: string): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    this.entries.delete(name);
    if (entry.taskSupport) this.taskTools--;
    if (entry.ui) this.uiTools--;
    this.changed(entry.requiredScopes);
    return true;
  }

  private changed(requiredScopes: readonly string[] | undefined): void {
    this.listing.invalidate();
    this.onChange(requiredScopes);
  }
}

/** The checks of schemas given in a style that validates itself, by direction. */
export interface ToolSchemaChecks {
  input?: SchemaCheck;
  output?: SchemaCheck;
}

/** JSON Schema semantics: the value is checked, never changed (ajv runs without defaults or coercion). */
function checkOf(compiled: CompiledSchema, own: SchemaCheck | undefined): SchemaCheck {
  return own ?? compiled.check;
}

/** Drops keys whose value is undefined so published definitions carry only what was declared. */
export function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
