import { assignMetadata, type PipeTransform, type Type } from '@nestjs/common';
import { MCP_DEFAULT_PARAMS_METADATA, MCP_PARAM_ARGS_METADATA } from '../../mcp-metadata.constants.js';
import type { McpParamtype } from '../../pipeline/mcp-paramtype.enum.js';

export type McpParamPipe = PipeTransform | Type<PipeTransform>;

/** Records one MCP handler parameter where Nest's ExternalContextCreator reads it, with its own pipes. */
export function createMcpParamDecorator(paramtype: McpParamtype) {
  return (propertyOrPipe?: string | McpParamPipe, ...pipes: McpParamPipe[]): ParameterDecorator =>
    (target, key, index) => {
      const property = typeof propertyOrPipe === 'string' ? propertyOrPipe : undefined;
      const allPipes =
        propertyOrPipe === undefined || typeof propertyOrPipe === 'string' ? pipes : [propertyOrPipe, ...pipes];
      const params = Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, target.constructor, key!) ?? {};
      Reflect.defineMetadata(
        MCP_PARAM_ARGS_METADATA,
        assignMetadata(params, paramtype, index, property, ...allPipes),
        target.constructor,
        key!,
      );
    };
}

/**
 * A method with no MCP parameter decorator receives the kernel's handler arguments, as if registered through
 * `MCPServer`. Recorded by the method decorator, which runs after the parameter decorators.
 */
export function defaultMcpParams(target: object, key: string | symbol, paramtypes: McpParamtype[]): void {
  if (Reflect.hasOwnMetadata(MCP_PARAM_ARGS_METADATA, target.constructor, key)) return;
  const params = paramtypes.reduce((acc, paramtype, index) => assignMetadata(acc, paramtype, index), {});
  Reflect.defineMetadata(MCP_PARAM_ARGS_METADATA, params, target.constructor, key);
  Reflect.defineMetadata(MCP_DEFAULT_PARAMS_METADATA, true, target.constructor, key);
}
