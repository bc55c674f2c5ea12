import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { McpResult } from '../../protocol/mcp-types.js';
import type { RuledListing, Visibility } from '../registry/visibility.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { Cacheable, PRIVATE_LIST, PUBLIC_LIST } from '../method-result.js';

/**
 * One page of a list method, under `key`, as `visibility` lets this caller see it. A list method is gated by its
 * capability: without anything registered it does not exist (-32601). A list whose content depends on the caller
 * (scoped primitives, or ones that decide per request) is private to the caller on every page.
 */
export async function listPage<R extends McpResult, T>(
  available: boolean,
  key: string,
  listing: RuledListing<T>,
  visibility: Visibility,
  request: JsonRpcRequest,
  context: McpRequestContext,
): Promise<Cacheable<R>> {
  if (!available) throw McpError.methodNotFound(`${key === 'resourceTemplates' ? 'resources/templates' : key}/list`);
  const { items, nextCursor, personal } = await visibility.page(listing, request, context);
  const result: Record<string, unknown> = { [key]: items };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return new Cacheable(result as R, personal ? PRIVATE_LIST : PUBLIC_LIST);
}
