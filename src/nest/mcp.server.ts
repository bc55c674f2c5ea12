import { Inject, Injectable } from '@nestjs/common';
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { McpCallInterceptor } from '../server/mcp-call.js';
import type { McpKernel } from '../server/kernel/mcp-kernel.js';
import type { McpRequestContext } from '../server/mcp-request-context.js';
import type { PromptRegistration } from '../server/registry/prompt-registry.js';
import type { ResourceRegistration, ResourceTemplateRegistration } from '../server/registry/resource-registry.js';
import type { JsonSchema } from '../protocol/mcp-types.js';
import type { RegistrationHandle } from '../server/registry/registration-handle.js';
import type { InferSchemaInput } from '../server/schema/mcp-schema.js';
import type { McpToolRegistration } from '../server/registry/tool-registration.js';
import type { ToolHandler, ToolRegistrationOptions } from '../server/registry/tool-registry.js';
import type { UiResourceRegistration } from '../server/registry/ui-resource.js';
import type { McpSkill } from '../server/skills/skill-options.js';
import type { McpEventRegistration } from '../server/domain-events/event-catalog.js';
import type { QueuedTask } from '../server/tasks/task-queue.js';
import { MCP_KERNEL } from './mcp.constants.js';

/**
 * The injectable MCP server. Inject it to register tools, resources and prompts at run time, or to call
 * `handleRequest` directly (tests, health checks). It fronts this module's kernel; what only a transport
 * should do (dispatch past the version rung, end every listen stream) stays off it.
 */
@Injectable()
export class MCPServer {
  constructor(@Inject(MCP_KERNEL) private readonly kernel: McpKernel) {}

  /** Calls running now and listen streams open now, for health checks and load tests. */
  get load(): { calls: number; subscriptions: number } {
    return this.kernel.load;
  }

  /**
   * Registers a tool from its name, description, input schema (JSON Schema, zod, Standard Schema or a DTO class,
   * as `@Tool` takes) and handler, whose arguments are typed from the schema. Other options (`taskSupport`, ...) come last. The handle updates or removes it.
   */
  registerTool<S extends object>(
    name: string,
    description: string,
    schema: S,
    handler: ToolHandler<InferSchemaInput<S>>,
    options?: ToolRegistrationOptions,
  ): RegistrationHandle<McpToolRegistration<S>> {
    return this.kernel.registerTool(name, description, schema, handler, options);
  }

  /** Registers a tool with every option the spec allows (title, outputSchema, annotations, icons, _meta). */
  addTool<S extends object = JsonSchema>(
    registration: McpToolRegistration<S>,
  ): RegistrationHandle<McpToolRegistration<S>> {
    return this.kernel.addTool(registration);
  }

  removeTool(name: string): boolean {
    return this.kernel.removeTool(name);
  }

  hasTool(name: string): boolean {
    return this.kernel.hasTool(name);
  }

  addResource(registration: ResourceRegistration): RegistrationHandle<ResourceRegistration> {
    return this.kernel.addResource(registration);
  }

  addResourceTemplate(registration: ResourceTemplateRegistration): RegistrationHandle<ResourceTemplateRegistration> {
    return this.kernel.addResourceTemplate(registration);
  }

  removeResource(uri: string): boolean {
    return this.kernel.removeResource(uri);
  }

  removeResourceTemplate(uriTemplate: string): boolean {
    return this.kernel.removeResourceTemplate(uriTemplate);
  }

  /**
   * Registers an MCP Apps UI resource: a `ui://` URI serving one HTML document, given inline (`html`), as a
   * `file` read now (a missing file fails here, at start-up), or from a `handler` per read; with `csp`,
   * `permissions`, `domain` and `prefersBorder`. Remove it with `removeResource`. See docs/apps.md.
   */
  addUiResource(registration: UiResourceRegistration): RegistrationHandle<UiResourceRegistration> {
    return this.kernel.addUiResource(registration);
  }

  addPrompt(registration: PromptRegistration): RegistrationHandle<PromptRegistration> {
    return this.kernel.addPrompt(registration);
  }

  removePrompt(name: string): boolean {
    return this.kernel.removePrompt(name);
  }

  /**
   * Serves a skill built in code (SEP-2640), next to those of the `skills` option: its `SKILL.md` is written
   * from `name`, `description`, `frontmatter` and `body`, its `files` become `skill://` resources. Returns the
   * URI of its `SKILL.md`. See docs/discovery.md.
   */
  addSkill(skill: McpSkill): string {
    return this.kernel.addSkill(skill);
  }

  /** Stops serving the skill whose `SKILL.md` is at `uri`, and its files; false when there is none. */
  removeSkill(uri: string): boolean {
    return this.kernel.removeSkill(uri);
  }

  /**
   * Declares an event type (SEP-3415) published only through `publishEvent`; `@McpEvent` declares one fed by
   * the app's emitter. Declaring one is the server's opt-in to the Events extension. See docs/events.md.
   */
  addEvent(registration: McpEventRegistration): void {
    this.kernel.addEvent(registration);
  }

  /** Stops offering the event type: its open `events/stream` requests end with `notifications/events/terminated`. */
  removeEvent(name: string): boolean {
    return this.kernel.removeEvent(name);
  }

  /**
   * Publishes one occurrence of a declared event type with `data` (checked against its payloadSchema): kept for
   * polls within its retention and sent to its open streams before the promise settles. Rejects for an
   * undeclared type, data that is not a plain object or that its payloadSchema refuses, or one larger than its
   * retention's `maxBytes`.
   */
  publishEvent(name: string, data: unknown): Promise<void> {
    return this.kernel.publishEvent(name, data);
  }

  /** Tells listen streams that subscribed to this resource that it changed. */
  notifyResourceUpdated(uri: string): void {
    this.kernel.notifyResourceUpdated(uri);
  }

  /** Processes one JSON-RPC message in-process, through every rung a transport's request goes through. */
  handleRequest(message: unknown, context?: McpRequestContext): Promise<JsonRpcResponse | undefined> {
    return this.kernel.handleRequest(message, context);
  }

  /**
   * Runs one round of a queued task, taken from the `tasks.queue` the server was given (what a queue's worker
   * calls per job: `nestjs-mcp/bullmq` does). `restarts`: how often the queue gave the round again after losing
   * its worker; past the tool's `retry`, the task ends `failed` without running.
   */
  runQueuedTask(job: QueuedTask, restarts = 0): Promise<void> {
    return this.kernel.runQueuedTask(job, restarts);
  }

  /** Adds an interceptor around every call (logging, tracing, metrics); each one added wraps those added before. */
  intercept(interceptor: McpCallInterceptor): void {
    this.kernel.intercept(interceptor);
  }
}
