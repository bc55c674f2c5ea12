import { McpParamtype } from '../../pipeline/mcp-paramtype.enum.js';
import { createMcpParamDecorator } from './mcp-param-decorator.factory.js';

/**
 * The request's `McpContext`: protocol version, client capabilities and info, progress and log, the abort
 * signal, input helpers (elicit, sample, listRoots) and the HTTP request. `@McpCtx('signal')` picks one property.
 */
export const McpCtx = createMcpParamDecorator(McpParamtype.CONTEXT);
