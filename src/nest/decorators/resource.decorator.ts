import { SetMetadata } from '@nestjs/common';
import type { ResourceRegistration } from '../../server/registry/resource-registry.js';
import { MCP_RESOURCE_METADATA } from '../mcp-metadata.constants.js';
import { McpParamtype } from '../pipeline/mcp-paramtype.enum.js';
import { defaultMcpParams } from './params/mcp-param-decorator.factory.js';
import type { HideWhenDeniedOption } from './tool.decorator.js';

export type ResourceOptions = Omit<ResourceRegistration, 'handler' | 'visible'> & HideWhenDeniedOption;

/**
 * Declares a provider method as a static MCP resource (registered with `MCPServer.addResource`). Without
 * parameter decorators the method receives `(uri, variables, ctx)`.
 */
export function Resource(options: ResourceOptions): MethodDecorator {
  return (target, key, descriptor) => {
    defaultMcpParams(target, key, [McpParamtype.URI, McpParamtype.ARGS, McpParamtype.CONTEXT]);
    SetMetadata(MCP_RESOURCE_METADATA, options)(target, key, descriptor);
  };
}
