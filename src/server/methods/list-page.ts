import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { McpResult } from '../../protocol/mcp-types.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { Cacheable, PRIVATE_LIST, PUBLIC_LIST } from '../method-result.js';
import type { PagedList } from '../registry/paged-list.js';

/**
 * One page of a list method, under `key`. A list method is gated by its capability: without anything
 * registered it does not exist (-32601). A list that holds scoped primitives differs per caller, so every page
 * of it is private to the caller.
 */
export function listPage<R extends McpResult, T>(
  available: boolean,
  key: string,
  listing: PagedList<T>,
  request: JsonRpcRequest,
  context: McpRequestContext,
): Cacheable<R> {
  if (!available) throw McpError.methodNotFound(`${key === 'resourceTemplates' ? 'resources/templates' : key}/list`);
  const { items, nextCursor } = listing.page(request.params?.cursor, new Set(context.scopes));
  const result: Record<string, unknown> = { [key]: items };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return new Cacheable(result as R, listing.scoped ? PRIVATE_LIST : PUBLIC_LIST);
}
