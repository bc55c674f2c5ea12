import type { JsonSchema } from '../../protocol/mcp-types.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { REGISTRATION_FAILED } from '../errors/configuration-messages.js';
import type { McpBusEvent, McpEventBus } from '../events/event-bus.js';
import type { McpLogger } from '../mcp-logger.js';
import { uiLinkProblem } from '../apps/ui-links.js';
import { PromptRegistry, type PromptRegistration } from '../registry/prompt-registry.js';
import {
  ResourceRegistry,
  type ResourceRegistration,
  type ResourceTemplateRegistration,
} from '../registry/resource-registry.js';
import { register, type RegistrationHandle } from '../registry/registration-handle.js';
import { toToolRegistration, type McpToolRegistration } from '../registry/tool-registration.js';
import { ToolRegistry, type ToolHandler, type ToolRegistrationOptions } from '../registry/tool-registry.js';
import { toUiResourceRegistration, type UiResourceRegistration } from '../registry/ui-resource.js';
import type { InferSchemaInput } from '../schema/mcp-schema.js';
import type { SchemaCompiler } from '../schema/schema-compiler.js';
import { SkillCatalog } from '../skills/skill-catalog.js';
import { EventCatalog, type McpEventRegistration } from '../domain-events/event-catalog.js';
import type { McpEventStore } from '../domain-events/event-store.js';
import type { McpSkill, McpSkillsOptions } from '../skills/skill-options.js';

/**
 * The kernel's registration API: the tool, resource and prompt registries and the skill catalog, what adds to
 * and removes from them, and the list changes they publish. `McpKernel` is this plus the dispatcher.
 */
export class KernelRegistrations {
  protected readonly tools: ToolRegistry;
  protected readonly resources: ResourceRegistry;
  protected readonly prompts: PromptRegistry;
  protected readonly skills: SkillCatalog;
  protected readonly events: EventCatalog;
  /** Set by `checkUiLinks`: from then on a tool added with a UI must name a registered UI resource at once. */
  private uiLinksChecked = false;

  constructor(
    schemas: SchemaCompiler,
    pageSize: number,
    skills: McpSkillsOptions | undefined,
    protected readonly eventBus: McpEventBus,
    protected readonly logger: McpLogger,
    eventStore: McpEventStore,
  ) {
    this.tools = new ToolRegistry(schemas, pageSize, (requiredScopes) =>
      this.publish({ type: 'tools/list_changed', requiredScopes }),
    );
    this.resources = new ResourceRegistry(pageSize, (requiredScopes) =>
      this.publish({ type: 'resources/list_changed', requiredScopes }),
    );
    this.prompts = new PromptRegistry(pageSize, (requiredScopes) =>
      this.publish({ type: 'prompts/list_changed', requiredScopes }),
    );
    this.skills = new SkillCatalog(skills, this.resources, pageSize);
    this.events = new EventCatalog(schemas, pageSize, eventStore);
    this.events.watchers.add({
      changed: (type) => this.publish({ type: 'events/list_changed', requiredScopes: type.requiredScopes }),
    });
  }

  /**
   * Registers a tool from its name, description, input schema (JSON Schema, zod, Standard Schema or a DTO class)
   * and handler, whose arguments are typed from the schema, plus any other option (`taskSupport`, ...).
   */
  registerTool<S extends object>(
    name: string,
    description: string,
    schema: S,
    handler: ToolHandler<InferSchemaInput<S>>,
    options: ToolRegistrationOptions = {},
  ): RegistrationHandle<McpToolRegistration<S>> {
    return this.addTool({ ...options, name, description, inputSchema: schema, handler });
  }

  /** Registers a tool with every option the spec allows (title, outputSchema, annotations, icons, _meta). */
  addTool<S extends object = JsonSchema>(
    registration: McpToolRegistration<S>,
  ): RegistrationHandle<McpToolRegistration<S>> {
    return register(
      registration,
      (r) => {
        const { registration: tool, checks } = toToolRegistration(r as McpToolRegistration<object>);
        const problem = this.uiLinksChecked ? this.uiLinkProblem(tool.name, tool.ui?.resourceUri) : undefined;
        if (problem) throw new McpConfigurationError(REGISTRATION_FAILED(`Tool "${tool.name}"`, problem));
        this.tools.add(tool, checks);
      },
      (r) => this.tools.remove(r.name),
    );
  }

  removeTool(name: string): boolean {
    return this.tools.remove(name);
  }

  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  addResource(registration: ResourceRegistration): RegistrationHandle<ResourceRegistration> {
    return register(
      registration,
      (r) => this.resources.addResource(r),
      (r) => this.resources.removeResource(r.uri),
    );
  }

  addResourceTemplate(registration: ResourceTemplateRegistration): RegistrationHandle<ResourceTemplateRegistration> {
    return register(
      registration,
      (r) => this.resources.addTemplate(r),
      (r) => this.resources.removeTemplate(r.uriTemplate),
    );
  }

  removeResource(uri: string): boolean {
    return this.resources.removeResource(uri);
  }

  /**
   * Registers a UI resource (MCP Apps): a `ui://` URI serving one HTML document (inline, from a file read now, or
   * from a handler) with `text/html;profile=mcp-app` and its `_meta.ui` (csp, permissions, domain, prefersBorder).
   * Remove it with `removeResource`.
   */
  addUiResource(registration: UiResourceRegistration): RegistrationHandle<UiResourceRegistration> {
    return register(
      registration,
      (r) => this.resources.addResource(toUiResourceRegistration(r)),
      (r) => this.resources.removeResource(r.uri),
    );
  }

  /**
   * What keeps a tool's UI from rendering (it names no registered UI resource), one sentence per tool; empty when
   * every UI resolves. Called once everything is registered (the Nest module does, at start-up): from then on,
   * a tool added with a UI is refused at once unless its resource is there.
   */
  checkUiLinks(): string[] {
    this.uiLinksChecked = true;
    const problems: string[] = [];
    for (const entry of this.tools.withUi()) {
      const problem = this.uiLinkProblem(entry.definition.name, entry.ui.resourceUri);
      if (problem) problems.push(problem);
    }
    return problems;
  }

  private uiLinkProblem(tool: string, resourceUri: unknown): string | undefined {
    // A malformed uri is the tool registry's to report, with its own message.
    if (typeof resourceUri !== 'string') return undefined;
    return uiLinkProblem(tool, resourceUri, this.resources.definition(resourceUri));
  }

  removeResourceTemplate(uriTemplate: string): boolean {
    return this.resources.removeTemplate(uriTemplate);
  }

  addPrompt(registration: PromptRegistration): RegistrationHandle<PromptRegistration> {
    return register(
      registration,
      (r) => this.prompts.add(r),
      (r) => this.prompts.remove(r.name),
    );
  }

  removePrompt(name: string): boolean {
    return this.prompts.remove(name);
  }

  /**
   * Serves a skill built in code (SEP-2640): its `SKILL.md` is written from its fields, its files become
   * `skill://` resources. Returns the URI of its `SKILL.md`; throws `McpConfigurationError` when it is broken.
   */
  addSkill(skill: McpSkill): string {
    return this.skills.addSkill(skill);
  }

  /** Stops serving the skill whose `SKILL.md` is at `uri`, and its files; false when there is none. */
  removeSkill(uri: string): boolean {
    return this.skills.remove(uri);
  }

  /** Reads the folder of the `skills.directory` option; a transport host calls it once, before serving. */
  loadSkills(): Promise<void> {
    return this.skills.load();
  }

  /**
   * Declares an event type (SEP-3415): declaring one is the server's opt-in to the Events extension. Throws
   * `McpConfigurationError` when the declaration is broken or the name is taken.
   */
  addEvent(registration: McpEventRegistration): void {
    this.events.add(registration);
  }

  /**
   * Stops offering the event type: its open streams end with `notifications/events/terminated`, its webhook
   * subscriptions with a `terminated` envelope, and listen streams that asked are told the list changed.
   */
  removeEvent(name: string): boolean {
    return this.events.remove(name);
  }

  /**
   * Publishes one occurrence of a declared event type: kept in its log (within its retention) for polls, and
   * sent to its open streams, before this returns. Rejects for an undeclared type or data its payloadSchema refuses.
   */
  publishEvent(name: string, data: unknown): Promise<void> {
    try {
      return Promise.resolve(this.events.publish(name, data));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Tells listen streams that subscribed to this resource that it changed. */
  notifyResourceUpdated(uri: string): void {
    this.publish({ type: 'resources/updated', uri });
  }

  protected publish(event: McpBusEvent): void {
    // A remote bus that is down must neither fail the registration nor, as an unhandled rejection, end the
    // process: listen streams miss this change, and the log says so.
    Promise.resolve(this.eventBus.publish(event)).catch((error: unknown) =>
      this.logger.error(`MCP event bus: publish of ${event.type} failed`, error),
    );
  }
}
