import { SetMetadata } from '@nestjs/common';
import type { ResourceTemplateRegistration } from '../../server/registry/resource-registry.js';
import { MCP_RESOURCE_TEMPLATE_METADATA } from '../mcp-metadata.constants.js';
import { McpParamtype } from '../pipeline/mcp-paramtype.enum.js';
import type { McpCompleters } from './mcp-completers.js';
import { defaultMcpParams } from './params/mcp-param-decorator.factory.js';
import type { HideWhenDeniedOption } from './tool.decorator.js';

export interface ResourceTemplateOptions
  extends Omit<ResourceTemplateRegistration, 'handler' | 'complete' | 'visible'>, HideWhenDeniedOption {
  complete?: McpCompleters;
}

/**
 * Declares a provider method as an MCP resource template (registered with `MCPServer.addResourceTemplate`).
 * `@Args()` is the template's variables; without parameter decorators the method receives `(uri, variables, ctx)`.
 */
export function ResourceTemplate(options: ResourceTemplateOptions): MethodDecorator {
  return (target, key, descriptor) => {
    defaultMcpParams(target, key, [McpParamtype.URI, McpParamtype.ARGS, McpParamtype.CONTEXT]);
    SetMetadata(MCP_RESOURCE_TEMPLATE_METADATA, options)(target, key, descriptor);
  };
}
