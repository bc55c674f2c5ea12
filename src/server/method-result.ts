import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { CacheHints, InputRequests, McpResult } from '../protocol/mcp-types.js';
import type { TaskResult } from '../protocol/extensions/tasks.js';
import type {
  ListEventsResult,
  PollEventsResult,
  SubscribeEventsResult,
  UnsubscribeEventsResult,
} from '../protocol/extensions/events.js';
import type { Caller } from './access/caller-identity.js';
import type { McpRequestContext } from './mcp-request-context.js';

/**
 * Which cache hints (SEP-2549) a result takes. A family says which kind applies; the era's glue decides
 * whether and how to write them (2026-07-28 writes `ttlMs`/`cacheScope`, earlier revisions write nothing).
 */
export type CacheHint =
  | { readonly kind: 'list'; readonly private: boolean }
  | { readonly kind: 'discover' }
  | {
      readonly kind: 'read';
      readonly retry: boolean;
      readonly private: boolean;
      readonly override: Partial<CacheHints> | undefined;
    };

export const PUBLIC_LIST: CacheHint = { kind: 'list', private: false };
export const PRIVATE_LIST: CacheHint = { kind: 'list', private: true };
export const DISCOVER: CacheHint = { kind: 'discover' };

/** A result that takes cache hints, with the hints it takes. */
export class Cacheable<R extends McpResult | ListEventsResult = McpResult | ListEventsResult> {
  constructor(
    readonly result: R,
    readonly hint: CacheHint,
  ) {}
}

/**
 * A handler asked the client for input: what to ask, and the signed state that carries the round. The era's
 * glue turns it into its own shape (2026-07-28: an `input_required` result).
 */
export class InterimResult {
  constructor(
    readonly inputRequests: InputRequests,
    readonly requestState: string,
    /** A tools/call interim result also carries `content`, for clients that show it as it is. */
    readonly toolCall: boolean,
  ) {}
}

/** What a method family answers: the core result, the same with its cache hints, or a request for input. */
export type MethodResult =
  | McpResult
  | TaskResult
  | PollEventsResult
  | SubscribeEventsResult
  | UnsubscribeEventsResult
  | Cacheable
  | InterimResult;

/**
 * A family's method: the request, its transport's context, and who it speaks for (computed once, by the kernel).
 * A method that can answer synchronously may (and may throw its refusal): the kernel awaits only a promise.
 */
export type MethodHandler = (
  request: JsonRpcRequest,
  context: McpRequestContext,
  caller: Caller,
) => MethodResult | Promise<MethodResult>;
