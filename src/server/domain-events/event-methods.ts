import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { EventDescriptor, ListEventsResult, PollEventsResult } from '../../protocol/extensions/events.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import { Cacheable, PRIVATE_LIST, PUBLIC_LIST } from '../method-result.js';
import type { Visibility } from '../registry/visibility.js';
import type { EventCatalog } from './event-catalog.js';
import { readFrom, subscriptionOf } from './event-subscription.js';

/** Most occurrences one poll returns, whatever `maxEvents` asks; `hasMore` says when more wait. */
export const MAX_EVENTS_PER_POLL = 100;
/** How long a client that is not behind waits before polling again. */
export const NEXT_POLL_MS = 5_000;

/**
 * `events/list` and `events/poll` (SEP-3415). A server that declares no event type does not offer the
 * extension: both answer -32601, as for any method the server does not have.
 */
export class EventMethods {
  constructor(
    private readonly catalog: EventCatalog,
    private readonly visibility: Visibility,
    private readonly now: () => number = Date.now,
  ) {}

  async list(request: JsonRpcRequest, transport: McpRequestContext): Promise<Cacheable<ListEventsResult>> {
    this.requireEvents(request);
    const { items, nextCursor, personal } = await this.visibility.page(this.catalog.listing, request, transport);
    // The page as the listing keeps it, not a copy: its bytes were serialized once, and a copy would miss them.
    const result: ListEventsResult = { events: items as EventDescriptor[] };
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    return new Cacheable(result, personal ? PRIVATE_LIST : PUBLIC_LIST);
  }

  async poll(request: JsonRpcRequest, transport: McpRequestContext): Promise<PollEventsResult> {
    this.requireEvents(request);
    const start = await subscriptionOf(this.catalog, this.visibility, request, transport, 'poll', this.now());
    const asked = request.params?.maxEvents;
    if (asked !== undefined && (!Number.isSafeInteger(asked) || (asked as number) < 1))
      throw McpError.invalidParams('Invalid params: "maxEvents" must be a positive integer');
    const max = Math.min((asked as number | undefined) ?? MAX_EVENTS_PER_POLL, MAX_EVENTS_PER_POLL);
    const read = await readFrom(this.catalog, start, max);
    return {
      events: read.items.map((item) => item.occurrence),
      cursor: read.position,
      truncated: read.truncated,
      hasMore: read.hasMore,
      nextPollMs: NEXT_POLL_MS,
    };
  }

  /** Throws -32601 while the server declares no event type. */
  requireEvents(request: JsonRpcRequest): void {
    if (this.catalog.size === 0) throw McpError.methodNotFound(request.method);
  }
}
