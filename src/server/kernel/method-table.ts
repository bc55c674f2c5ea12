import type { HandlerFailure } from '../failures/handler-failure.js';
import type { McpEventBus } from '../events/event-bus.js';
import type { InputRound } from '../input/input-round.js';
import type { MethodHandler } from '../method-result.js';
import { CompletionMethods } from '../methods/completion.js';
import { ListenMethods } from '../methods/listen.js';
import type { ListenLimits } from '../methods/listen-access.js';
import { PromptMethods } from '../methods/prompts.js';
import { ResourceMethods } from '../methods/resources.js';
import { ServerMethods } from '../methods/server.js';
import { TaskMethods } from '../methods/tasks.js';
import { ToolMethods } from '../methods/tools.js';
import type { ScopeGate } from '../access/scope-gate.js';
import { Visibility } from '../registry/visibility.js';
import type { PromptRegistry } from '../registry/prompt-registry.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { SchemaCompiler } from '../schema/schema-compiler.js';
import { SkillMethods } from '../skills/skill-methods.js';
import { EventMethods } from '../domain-events/event-methods.js';
import { EventStreams } from '../domain-events/event-streams.js';
import type { EventCatalog } from '../domain-events/event-catalog.js';
import { WebhookMethods } from '../domain-events/webhooks/webhook-methods.js';
import type { WebhookSettings } from '../domain-events/webhooks/webhook-options.js';
import type { McpWebhookStore } from '../domain-events/webhook-store.js';
import type { McpLogger } from '../mcp-logger.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import type { TaskRunner } from '../tasks/task-runner.js';
import { ToolTasks } from '../tasks/tool-tasks.js';
import { Era2026 } from '../eras/era-2026.js';
import type { McpServerOptions } from './mcp-server-options.js';

/** What the families serve from. */
export interface KernelRegistries {
  tools: ToolRegistry;
  resources: ResourceRegistry;
  prompts: PromptRegistry;
  skills: SkillCatalog;
  events: EventCatalog;
}

/** The services a family may be given: each gets only those it uses. */
export interface KernelServices {
  round: InputRound;
  failure: HandlerFailure;
  gate: ScopeGate;
  taskRunner: TaskRunner;
  schemas: SchemaCompiler;
  /** Where webhook subscriptions live, how they are delivered to, and where delivery failures are logged. */
  webhooks: { store: McpWebhookStore; settings: WebhookSettings; logger: McpLogger };
}

/** What listen streams need beyond the registries. */
export interface KernelListen {
  eventBus: McpEventBus;
  limits: ListenLimits;
  serverName: string;
}

/** One object per method family, built once per kernel. */
export interface MethodFamilies {
  server: ServerMethods;
  tools: ToolMethods;
  resources: ResourceMethods;
  prompts: PromptMethods;
  completion: CompletionMethods;
  skills: SkillMethods;
  listen: ListenMethods;
  tasks: TaskMethods;
  events: EventMethods;
  eventStreams: EventStreams;
  webhooks: WebhookMethods;
}

export function createMethodFamilies(
  registries: KernelRegistries,
  { round, failure, gate, taskRunner, schemas, webhooks }: KernelServices,
  listen: KernelListen,
  { instructions, extensions }: Pick<McpServerOptions, 'instructions' | 'extensions'>,
): MethodFamilies {
  const { tools, resources, prompts, skills, events } = registries;
  const visibility = new Visibility(gate, (request, transport) => round.askerContext(request, transport));
  const completion = new CompletionMethods(prompts, resources, visibility);
  return {
    server: new ServerMethods(
      tools,
      prompts,
      resources,
      completion,
      skills,
      events,
      Era2026.supportedVersions,
      instructions,
      extensions,
    ),
    tools: new ToolMethods(tools, round, failure, new ToolTasks(taskRunner, schemas), visibility),
    resources: new ResourceMethods(resources, round, failure, visibility),
    prompts: new PromptMethods(prompts, round, failure, visibility),
    completion,
    skills: new SkillMethods(skills, visibility),
    listen: new ListenMethods(
      tools,
      prompts,
      resources,
      listen.eventBus,
      listen.limits,
      gate,
      listen.serverName,
      () => events.size,
    ),
    tasks: new TaskMethods(taskRunner, schemas),
    events: new EventMethods(events, visibility),
    eventStreams: new EventStreams(events, visibility, listen.limits),
    webhooks: new WebhookMethods(events, visibility, webhooks.store, webhooks.settings, webhooks.logger),
  };
}

/** The kernel's method table: each method the 2026-07-28 revision has, to the family method that answers it. */
export function methodTable(f: MethodFamilies): ReadonlyMap<string, MethodHandler> {
  return new Map<string, MethodHandler>([
    ['server/discover', () => f.server.discover()],
    ['tools/list', (req, ctx) => f.tools.list(req, ctx)],
    ['tools/call', (req, ctx, caller) => f.tools.call(req, ctx, caller)],
    ['resources/list', (req, ctx) => f.resources.list(req, ctx)],
    ['resources/templates/list', (req, ctx) => f.resources.listTemplates(req, ctx)],
    ['resources/read', (req, ctx, caller) => f.resources.read(req, ctx, caller)],
    ['prompts/list', (req, ctx) => f.prompts.list(req, ctx)],
    ['prompts/get', (req, ctx, caller) => f.prompts.get(req, ctx, caller)],
    ['completion/complete', (req, ctx) => f.completion.complete(req, ctx)],
    ['skills/list', (req, ctx) => f.skills.list(req, ctx)],
    ['skills/get', (req, ctx) => f.skills.get(req, ctx)],
    ['resources/directory/read', (req, ctx) => f.skills.readDirectory(req, ctx)],
    ['subscriptions/listen', (req, ctx, caller) => f.listen.listen(req, ctx, caller)],
    ['tasks/get', (req, _ctx, caller) => f.tasks.get(req, caller)],
    ['tasks/update', (req, _ctx, caller) => f.tasks.update(req, caller)],
    ['tasks/cancel', (req, _ctx, caller) => f.tasks.cancel(req, caller)],
    ['events/list', (req, ctx) => f.events.list(req, ctx)],
    ['events/poll', (req, ctx) => f.events.poll(req, ctx)],
    ['events/stream', (req, ctx, caller) => f.eventStreams.stream(req, ctx, caller)],
    ['events/subscribe', (req, ctx, caller) => f.webhooks.subscribe(req, ctx, caller)],
    ['events/unsubscribe', (req, ctx, caller) => f.webhooks.unsubscribe(req, ctx, caller)],
  ]);
}
