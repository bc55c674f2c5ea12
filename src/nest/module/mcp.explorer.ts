import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { McpContext } from '../../server/mcp-context.js';
import type { Visible } from '../../server/registry/visibility.js';
import type { ToolHandler } from '../../server/registry/tool-registry.js';
import type { InputRequired } from '../../server/input-required.js';
import type { PromptValue } from '../../server/registry/prompt-registry.js';
import type { Completer, ResourceReadValue } from '../../server/registry/resource-registry.js';
import type { McpCompleters } from '../decorators/mcp-completers.js';
import type { SkillContent } from '../decorators/skill.decorator.js';
import type { McpEventOptions } from '../decorators/mcp-event.decorator.js';
import type { McpArgumentsHost } from '../pipeline/mcp-arguments-host.js';
import { McpHandlerFactory } from '../pipeline/mcp-handler.factory.js';
import { getRequiredScopes } from '../decorators/require-scopes.decorator.js';
import { McpMetadataAccessor, type McpMethodMetadata } from './mcp-metadata.accessor.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { MCP_SERVER } from '../mcp.constants.js';
import {
  ARGUMENT_SCHEMA_MISSING,
  COMPLETER_NOT_A_METHOD,
  DUPLICATE_PRIMITIVE,
  EVENT_NOT_STATIC,
  SKILL_NOT_STATIC,
} from '../mcp-messages.js';
import { AppEventBridge } from '../events/app-event-bridge.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { McpRegistrationError } from '../errors/mcp-registration-error.js';
import type { MCPServer } from '../mcp.server.js';
import { providerPrototype } from '../provider-prototype.js';
import { RouteToolsExplorer } from './route-tools.explorer.js';

type ResourceResult = ResourceReadValue | InputRequired;
type PromptResult = PromptValue | InputRequired;

interface DecoratedMethod {
  wrapper: InstanceWrapper;
  methodName: string;
  /** `Class.method`, for start-up errors. */
  place: string;
  metadata: McpMethodMetadata;
  /** What `@RequireScopes` declared on the method and its class. */
  requiredScopes?: string[];
  /** What the method receives of its validated arguments, when the plugin's types ask for more than JSON. */
  given?: (args: unknown) => unknown;
  /** A tool that reads arguments it has no schema for (see `McpMetadataAccessor.lacksArgumentSchema`). */
  unschemed: boolean;
}

/**
 * Finds every `@Tool`, `@Resource`, `@ResourceTemplate`, `@Prompt`, `@UiResource`, `@Skill` and `@McpEvent` method among the providers
 * in reach (all modules, or those of the `include` option) and registers it with this module's `MCPServer`, the
 * registry `registerTool` feeds. Everything (schemas, validators, handlers, the pipeline) is built here, once.
 */
@Injectable()
export class McpExplorer implements OnModuleInit, OnModuleDestroy {
  private readonly appEvents: AppEventBridge;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpMetadataAccessor,
    private readonly handlers: McpHandlerFactory,
    @Inject(MCP_SERVER) private readonly server: MCPServer,
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly routeTools: RouteToolsExplorer,
    moduleRef: ModuleRef,
  ) {
    this.appEvents = new AppEventBridge(moduleRef);
  }

  onModuleDestroy(): void {
    this.appEvents.close();
  }

  async onModuleInit(): Promise<void> {
    const places = new Map<string, string>();
    const methods = [...this.explore()];
    // All of them in one message: a forgotten plugin metadata file leaves out every plain tool of the app.
    const unschemed = methods.filter((method) => method.unschemed).map((method) => method.place);
    if (unschemed.length > 0) throw new McpConfigurationError(ARGUMENT_SCHEMA_MISSING(unschemed));
    for (const method of methods) {
      const { metadata, place } = method;
      const key = identityOf(metadata, method.methodName);
      const claimed = places.get(`${metadata.kind}:${key}`);
      if (claimed) throw new McpConfigurationError(DUPLICATE_PRIMITIVE(metadata.kind, key, claimed, place));
      places.set(`${metadata.kind}:${key}`, place);
      try {
        await this.register(method);
      } catch (error) {
        throw new McpRegistrationError(place, { cause: error });
      }
    }
    for (const { name, place, registration } of this.routeTools.explore()) {
      const claimed = places.get(`tool:${name}`);
      if (claimed) throw new McpConfigurationError(DUPLICATE_PRIMITIVE('tool', name, claimed, place));
      places.set(`tool:${name}`, place);
      try {
        this.server.addTool(registration);
      } catch (error) {
        throw new McpRegistrationError(place, { cause: error });
      }
    }
  }

  private *explore(): Generator<DecoratedMethod> {
    const include = this.options.include;
    for (const wrapper of this.discovery.getProviders(include ? { include } : undefined)) {
      const prototype = providerPrototype(wrapper);
      if (!prototype) continue;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const declared = this.accessor.getMethodMetadata(prototype[methodName]);
        if (!declared) continue;
        const metadata = this.accessor.withPluginMetadata(declared, prototype.constructor, methodName);
        const given = this.accessor.pluginArgumentsOf(declared, prototype.constructor, methodName);
        const requiredScopes = getRequiredScopes(prototype[methodName], prototype.constructor);
        const unschemed = this.accessor.lacksArgumentSchema(declared, prototype.constructor, methodName);
        const place = `${prototype.constructor.name}.${methodName}`;
        yield { wrapper, methodName, metadata, requiredScopes, place, given, unschemed };
      }
    }
  }

  private async register(method: DecoratedMethod): Promise<void> {
    const { wrapper, methodName, metadata, requiredScopes, given, place } = method;
    switch (metadata.kind) {
      case 'tool': {
        const { name = methodName, inputSchema, outputSchema, hideWhenDenied, ...rest } = metadata.options;
        this.server.addTool({
          name,
          ...rest,
          inputSchema,
          outputSchema,
          handler: this.toolHandler(wrapper, methodName, given),
          visible: this.visibility(wrapper, methodName, hideWhenDenied, `tool "${name}"`),
          requiredScopes,
        });
        return;
      }
      case 'resource': {
        const { hideWhenDenied, ...options } = metadata.options;
        const handler = this.handlers.createReader<ResourceResult>(wrapper, methodName, 'resource');
        this.server.addResource({
          ...options,
          requiredScopes,
          visible: this.visibility(wrapper, methodName, hideWhenDenied, `resource "${options.uri}"`),
          handler: (uri, variables, ctx) => handler(hostOf(ctx, variables, uri)),
        });
        return;
      }
      case 'resourceTemplate': {
        const { hideWhenDenied, ...options } = metadata.options;
        const handler = this.handlers.createReader<ResourceResult>(wrapper, methodName, 'resource');
        this.server.addResourceTemplate({
          ...options,
          complete: this.completers(wrapper, options.complete),
          requiredScopes,
          visible: this.visibility(wrapper, methodName, hideWhenDenied, `resource template "${options.uriTemplate}"`),
          handler: (uri, variables, ctx) => handler(hostOf(ctx, variables, uri)),
        });
        return;
      }
      case 'uiResource': {
        const handler = this.handlers.createReader<string>(wrapper, methodName, 'resource');
        this.server.addUiResource({
          ...metadata.options,
          requiredScopes,
          handler: (uri, ctx) => handler(hostOf(ctx, {}, uri)),
        });
        return;
      }
      case 'skill': {
        const { name } = metadata.options;
        const content = await this.skillContent(wrapper, methodName, name);
        // A skill's guards always decide who sees it: its content is served without running the method again.
        const visible = this.visibility(wrapper, methodName, true, `skill "${name}"`);
        this.server.addSkill({ ...metadata.options, ...content, requiredScopes, visible });
        return;
      }
      case 'event':
        return this.registerEvent(wrapper, methodName, metadata.options, requiredScopes, place);
      case 'prompt': {
        const { name = methodName, hideWhenDenied, ...rest } = metadata.options;
        const handler = this.handlers.createReader<PromptResult>(wrapper, methodName, 'prompt');
        this.server.addPrompt({
          name,
          ...rest,
          complete: this.completers(wrapper, rest.complete),
          requiredScopes,
          visible: this.visibility(wrapper, methodName, hideWhenDenied, `prompt "${name}"`),
          handler: given ? (args, ctx) => handler(hostOf(ctx, given(args))) : (args, ctx) => handler(hostOf(ctx, args)),
        });
        return;
      }
    }
  }

  /** An `@McpEvent` method: the event type it declares, fed by the app events it listens to. */
  private async registerEvent(
    wrapper: InstanceWrapper,
    methodName: string,
    { on, ...options }: McpEventOptions,
    requiredScopes: string[] | undefined,
    place: string,
  ): Promise<void> {
    const instance = wrapper.instance as Record<string, (payload: unknown) => unknown> | undefined;
    if (!wrapper.isDependencyTreeStatic() || typeof instance?.[methodName] !== 'function')
      throw new McpConfigurationError(EVENT_NOT_STATIC(options.name));
    // Who follows an event is always its guards' decision: a refusal looks like an unknown event.
    const visible = this.visibility(wrapper, methodName, true, `event "${options.name}"`);
    this.server.addEvent({ ...options, requiredScopes, visible });
    const method = instance[methodName].bind(instance);
    await this.appEvents.listen(place, on ?? options.name, method, (data) =>
      this.server.publishEvent(options.name, data),
    );
  }

  /** A `@Tool` method as the registry calls it: with the arguments alone when the method takes nothing else. */
  private toolHandler(wrapper: InstanceWrapper, methodName: string, given: DecoratedMethod['given']): ToolHandler {
    const onArgs = this.handlers.createToolOnArgs(wrapper, methodName);
    if (onArgs) return given ? (args) => onArgs(given(args)) : onArgs;
    const handler = this.handlers.createTool(wrapper, methodName);
    return given
      ? (args, _inputResponses, ctx) => handler(hostOf(ctx, given(args)))
      : (args, _inputResponses, ctx) => handler(hostOf(ctx, args));
  }

  /**
   * Who sees a guarded primitive: with `hideWhenDenied` (else the module's `hideForbidden`), only callers its
   * guards let through, in every list and in every request that names it.
   */
  private visibility(
    wrapper: InstanceWrapper,
    methodName: string,
    hideWhenDenied: boolean | undefined,
    what: string,
  ): Visible | undefined {
    const hide = hideWhenDenied ?? this.options.hideForbidden ?? false;
    if (!hide || !this.handlers.hasGuards(wrapper, methodName)) return undefined;
    return this.handlers.createGuardCheck(wrapper, methodName, what);
  }

  /** A `@Skill` method's content, asked once at start-up of the provider's (singleton) instance. */
  private async skillContent(
    wrapper: InstanceWrapper,
    methodName: string,
    name: string,
  ): Promise<{ body: string; files?: Record<string, string | Uint8Array> }> {
    const instance = wrapper.instance as Record<string, () => unknown> | undefined;
    if (!wrapper.isDependencyTreeStatic() || typeof instance?.[methodName] !== 'function')
      throw new McpConfigurationError(SKILL_NOT_STATIC(name));
    const content = (await instance[methodName]()) as SkillContent;
    return typeof content === 'string' ? { body: content } : content;
  }

  /** Completers named by method are bound to the provider's (singleton) instance. */
  private completers(
    wrapper: InstanceWrapper,
    given: McpCompleters | undefined,
  ): Record<string, Completer> | undefined {
    if (!given) return undefined;
    const out: Record<string, Completer> = {};
    for (const [key, completer] of Object.entries(given)) {
      if (typeof completer === 'function') {
        out[key] = completer;
        continue;
      }
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!wrapper.isDependencyTreeStatic() || typeof instance?.[completer] !== 'function') {
        throw new McpConfigurationError(COMPLETER_NOT_A_METHOD(completer, key));
      }
      out[key] = (instance[completer] as Completer).bind(instance);
    }
    return out;
  }
}

function hostOf(ctx: McpContext, args: unknown, uri?: string): McpArgumentsHost {
  return [ctx.httpRequest, undefined, ctx, args, uri, ctx.inputResponses];
}

function identityOf(metadata: McpMethodMetadata, methodName: string): string {
  if (metadata.kind === 'resource' || metadata.kind === 'uiResource') return metadata.options.uri;
  if (metadata.kind === 'resourceTemplate') return metadata.options.uriTemplate;
  if (metadata.kind === 'skill') return `${metadata.options.prefix ?? ''}/${metadata.options.name}`;
  return metadata.options.name ?? methodName;
}
