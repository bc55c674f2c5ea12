import { Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { PromptOptions } from '../decorators/prompt.decorator.js';
import type { SkillOptions } from '../decorators/skill.decorator.js';
import type { McpEventOptions } from '../decorators/mcp-event.decorator.js';
import type { ResourceTemplateOptions } from '../decorators/resource-template.decorator.js';
import type { ResourceOptions } from '../decorators/resource.decorator.js';
import type { ToolOptions } from '../decorators/tool.decorator.js';
import type { UiResourceOptions } from '../decorators/ui-resource.decorator.js';
import {
  applyArgumentPlan,
  pluginMetadataOf,
  type PluginMethodMetadata,
} from '../../plugin/metadata/plugin-metadata.js';
import { isPrimitiveType } from '../../server/schema/api-property-schema.js';
import { McpContext } from '../../server/mcp-context.js';
import { McpParamtype } from '../pipeline/mcp-paramtype.enum.js';
import {
  MCP_DEFAULT_PARAMS_METADATA,
  MCP_EVENT_METADATA,
  MCP_PARAM_ARGS_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
  MCP_SKILL_METADATA,
  MCP_TOOL_METADATA,
  MCP_UI_RESOURCE_METADATA,
} from '../mcp-metadata.constants.js';

/** What an MCP method decorator declared, by kind. */
export type McpMethodMetadata =
  | { kind: 'tool'; options: ToolOptions }
  | { kind: 'resource'; options: ResourceOptions }
  | { kind: 'resourceTemplate'; options: ResourceTemplateOptions }
  | { kind: 'prompt'; options: PromptOptions }
  | { kind: 'uiResource'; options: UiResourceOptions }
  | { kind: 'skill'; options: SkillOptions }
  | { kind: 'event'; options: McpEventOptions };

/** Reads the MCP decorators' metadata off provider methods. */
@Injectable()
export class McpMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  getMethodMetadata(method: Type<unknown> | Function): McpMethodMetadata | undefined {
    const tool = this.reflector.get<ToolOptions | undefined>(MCP_TOOL_METADATA, method);
    if (tool) return { kind: 'tool', options: tool };
    const resource = this.reflector.get<ResourceOptions | undefined>(MCP_RESOURCE_METADATA, method);
    if (resource) return { kind: 'resource', options: resource };
    const template = this.reflector.get<ResourceTemplateOptions | undefined>(MCP_RESOURCE_TEMPLATE_METADATA, method);
    if (template) return { kind: 'resourceTemplate', options: template };
    const prompt = this.reflector.get<PromptOptions | undefined>(MCP_PROMPT_METADATA, method);
    if (prompt) return { kind: 'prompt', options: prompt };
    const ui = this.reflector.get<UiResourceOptions | undefined>(MCP_UI_RESOURCE_METADATA, method);
    if (ui) return { kind: 'uiResource', options: ui };
    const skill = this.reflector.get<SkillOptions | undefined>(MCP_SKILL_METADATA, method);
    if (skill) return { kind: 'skill', options: skill };
    const event = this.reflector.get<McpEventOptions | undefined>(MCP_EVENT_METADATA, method);
    if (event) return { kind: 'event', options: event };
    return undefined;
  }

  /**
   * The method's metadata with what `nestjs-mcp/plugin` derived from its types and comments filled in where the
   * decorator says nothing. A hand-written `inputSchema` (a prompt's `arguments`) keeps the plugin's schemas out.
   */
  withPluginMetadata(metadata: McpMethodMetadata, classRef: Function, methodName: string): McpMethodMetadata {
    const derived = pluginMetadataOf(classRef, methodName);
    if (!derived || derived.kind !== metadata.kind) return metadata;
    const description = metadata.options.description ?? derived.description;
    switch (metadata.kind) {
      case 'tool': {
        const schemas = metadata.options.inputSchema === undefined ? schemasOf(derived) : {};
        return { kind: 'tool', options: { ...schemas, ...defined(metadata.options), description } };
      }
      case 'prompt': {
        const args = metadata.options.arguments ?? derived.arguments;
        return { kind: 'prompt', options: { ...metadata.options, description, arguments: args } };
      }
      case 'resourceTemplate':
        return { kind: 'resourceTemplate', options: { ...metadata.options, description } };
      default:
        return metadata;
    }
  }

  /**
   * What the method receives of the arguments the plugin's schema validated: each `Date` revived and each
   * property initializer's default filled in, as its types declare. Undefined when there is nothing to do, or
   * when the decorator's own schema (a prompt's own `arguments`) stands in for the plugin's.
   */
  pluginArgumentsOf(
    declared: McpMethodMetadata,
    classRef: Function,
    methodName: string,
  ): ((args: unknown) => unknown) | undefined {
    const derived = pluginMetadataOf(classRef, methodName);
    const plan = derived?.kind === declared.kind ? derived.argumentPlan : undefined;
    const own =
      (declared.kind === 'tool' && declared.options.inputSchema !== undefined) ||
      (declared.kind === 'prompt' && declared.options.arguments !== undefined);
    return plan && !own ? (args) => applyArgumentPlan(plan, args) : undefined;
  }

  /**
   * Whether a tool takes arguments it has no schema for: no `inputSchema`, nothing from `nestjs-mcp/plugin` for
   * the method, and parameters that read arguments (`@Args`, or a DTO class as the kernel's first parameter).
   * Published as it stands, such a tool takes no arguments and refuses every call that passes one. A first
   * parameter typed with an interface or a type literal looks like `unknown` at run time (`Object`), which
   * tools that take no arguments declare too, so only a class there counts.
   */
  lacksArgumentSchema(metadata: McpMethodMetadata, classRef: Function, methodName: string): boolean {
    if (metadata.kind !== 'tool' || metadata.options.inputSchema !== undefined) return false;
    // Unvalidated, its arguments reach the method as sent: the method's own pipes judge them.
    if (metadata.options.validateArguments === false) return false;
    if (pluginMetadataOf(classRef, methodName)) return false;
    if (!Reflect.getMetadata(MCP_DEFAULT_PARAMS_METADATA, classRef, methodName)) {
      const params = (Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, classRef, methodName) ?? {}) as object;
      return Object.keys(params).some((key) => Number(key.split(':')[0]) === McpParamtype.ARGS);
    }
    // Emitted with decorator metadata (tsc's emitDecoratorMetadata, SWC's decoratorMetadata); absent otherwise.
    const types = Reflect.getMetadata('design:paramtypes', classRef.prototype as object, methodName) as
      unknown[] | undefined;
    const first = types?.[0];
    return typeof first === 'function' && !isPrimitiveType(first) && first !== McpContext;
  }
}

function schemasOf({ inputSchema, outputSchema }: PluginMethodMetadata) {
  return outputSchema ? { inputSchema, outputSchema } : { inputSchema };
}

function defined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
