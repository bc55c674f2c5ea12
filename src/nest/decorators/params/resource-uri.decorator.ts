import { McpParamtype } from '../../pipeline/mcp-paramtype.enum.js';
import { createMcpParamDecorator } from './mcp-param-decorator.factory.js';

/** The URI being read, on a `@Resource` or `@ResourceTemplate` method. */
export const ResourceUri = createMcpParamDecorator(McpParamtype.URI);
