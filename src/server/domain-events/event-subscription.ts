import { ErrorCode } from '../../protocol/error-codes.js';
import type { EventDelivery } from '../../protocol/extensions/events.js';
import { isPlainObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import type { Visibility } from '../registry/visibility.js';
import type { EventCatalog, EventType } from './event-catalog.js';
import type { EventStoreRead } from './event-store.js';

/** Where a subscription starts: now (a null cursor), or after the cursor given. */
export interface SubscriptionStart {
  readonly type: EventType;
  /** Undefined: from now. */
  readonly cursor: string | undefined;
  /** Milliseconds since the epoch before which nothing is replayed (`maxAgeMs`). */
  readonly floor: number;
}

/**
 * What `events/poll` and `events/stream` share: the event type the request names, if the caller may see it (a
 * guard's refusal is answered as an unknown event, so nothing tells a hidden type from a missing one), in a
 * mode it offers, with arguments its inputSchema accepts, from the cursor given.
 */
export async function subscriptionOf(
  catalog: EventCatalog,
  visibility: Visibility,
  request: JsonRpcRequest,
  transport: McpRequestContext,
  mode: EventDelivery,
  now: number,
): Promise<SubscriptionStart> {
  const params = request.params ?? {};
  const { name, cursor, maxAgeMs } = params;
  if (typeof name !== 'string') throw McpError.invalidParams('Invalid params: "name" must be a string');
  const type = catalog.get(name);
  if (!type || !(await visibility.admits(type, 'event', name, request, transport)))
    throw new McpError(ErrorCode.NotFound, `Event not found: ${name}`, { kind: 'event' });
  if (!type.descriptor.delivery.includes(mode))
    throw new McpError(ErrorCode.Unsupported, `Event "${name}" is not delivered by ${mode}`, {
      feature: 'deliveryMode',
      value: mode,
    });
  const args = params.arguments ?? {};
  if (!isPlainObject(args)) throw McpError.invalidParams('Invalid params: "arguments" must be an object');
  const problem = type.input.validate(args);
  if (problem) throw McpError.invalidParams(`Invalid arguments for event "${name}": ${problem}`);
  if (maxAgeMs !== undefined && (!Number.isSafeInteger(maxAgeMs) || (maxAgeMs as number) < 0))
    throw McpError.invalidParams('Invalid params: "maxAgeMs" must be a non-negative integer');
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string')
    throw McpError.invalidParams('Invalid cursor', { cursor });
  const floor = typeof maxAgeMs === 'number' ? now - maxAgeMs : -Infinity;
  return { type, cursor: cursor ?? undefined, floor };
}

/** Reads up to `max` occurrences from where the subscription starts; from now, nothing. */
export async function readFrom(catalog: EventCatalog, start: SubscriptionStart, max: number): Promise<EventStoreRead> {
  const { type, cursor, floor } = start;
  const { name } = type.descriptor;
  if (cursor === undefined) {
    const position = await catalog.store.head(name, type.retention);
    return { items: [], position, truncated: false, hasMore: false };
  }
  const read = await catalog.store.read(name, cursor, max, floor, type.retention);
  if (!read) throw McpError.invalidParams('Invalid cursor', { cursor });
  return read;
}
