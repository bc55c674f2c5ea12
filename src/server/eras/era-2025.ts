import type { JsonRpcRequest, JsonRpcResponse } from '../../protocol/jsonrpc.js';
import type { McpEra, PresentedResult } from './era.js';
import { Cacheable, type MethodResult } from '../method-result.js';
import { mayCarryPage } from '../response-serializer.js';

// Methods that exist only with the 2026-07-28 claim: a 2025 server never had them. The tasks extension's methods
// are 2026-07-28 ones (SEP-2663); 2025-11-25's experimental tasks had another wire, which this server does not serve.
const MODERN_ONLY: ReadonlySet<string> = new Set([
  'server/discover',
  'subscriptions/listen',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'events/list',
  'events/poll',
  'events/stream',
  'events/subscribe',
  'events/unsubscribe',
]);

/**
 * The presentation of the 2025-era revisions (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05) over the same method
 * families as 2026-07-28: results as the families answer them, with no `resultType`, no cache hints and no server
 * identity in `_meta`. An interim result is handed back as it is: the 2025-era leg turns it into real requests to
 * the client (`legacy-leg.ts`) and never sends it. The version rung is the leg's (`classifyEra`), so there is none.
 */
export class Era2025 implements McpEra {
  refuse(_request: JsonRpcRequest): JsonRpcResponse | undefined {
    return undefined;
  }

  removed(method: string): boolean {
    return MODERN_ONLY.has(method);
  }

  present(answer: MethodResult): PresentedResult {
    return answer instanceof Cacheable ? mayCarryPage(answer.result) : answer;
  }
}
