import { McpParamtype } from '../../pipeline/mcp-paramtype.enum.js';
import { createMcpParamDecorator } from './mcp-param-decorator.factory.js';

/**
 * The validated arguments of a tool call (a prompt's arguments, a resource template's variables). `@Args('city')`
 * picks one property; pipes given here run on this parameter only (the parameter's type is their metatype).
 */
export const Args = createMcpParamDecorator(McpParamtype.ARGS);
