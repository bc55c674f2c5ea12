import { checkProtocolVersion, initializeRemovedError } from '../../protocol/classifier.js';
import type { JsonRpcRequest, JsonRpcResponse } from '../../protocol/jsonrpc.js';
import { isPlainObject } from '../../protocol/jsonrpc.js';
import type { CacheHints, Implementation, InputRequiredResult, MetaObject } from '../../protocol/mcp-types.js';
import { META_SERVER_INFO, REMOVED_METHODS, SUPPORTED_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { cacheHints, definedHints } from '../registry/cache-hints.js';
import { mayCarryPage } from '../response-serializer.js';
import type { EraFields, McpEra, PresentedResult } from './era.js';
import { Cacheable, InterimResult, type CacheHint, type MethodResult } from '../method-result.js';

const DEFAULT_LIST_CACHE: CacheHints = { ttlMs: 60_000, cacheScope: 'public' };
const DEFAULT_READ_CACHE: CacheHints = { ttlMs: 0, cacheScope: 'private' };
const RETRY_CACHE: CacheHints = { ttlMs: 0, cacheScope: 'private' };
const INPUT_REQUIRED_TEXT = 'Additional client input is required before this tool can finish.';

/** The configurable cache hints (SEP-2549) of discover, list pages and resource reads. */
export interface CacheOptions {
  discover?: Partial<CacheHints>;
  lists?: Partial<CacheHints>;
  resources?: Partial<CacheHints>;
}

/**
 * Everything that is particular to protocol revision 2026-07-28, kept apart from the method families so another
 * era's glue can sit beside it over the same families: which versions it speaks and which methods it removed
 * (the version rung), and what it adds to every result: `resultType`, the server's identity in `_meta`, the
 * cache hints, and the `input_required` shape of an interim result.
 */
export class Era2026 implements McpEra {
  static readonly supportedVersions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private readonly listCache: CacheHints;
  private readonly privateListCache: CacheHints;
  private readonly readCache: CacheHints;
  private readonly discoverCache: CacheHints;

  constructor(
    private readonly serverInfo: Implementation,
    cache: CacheOptions | undefined,
  ) {
    this.listCache = cacheHints(cache?.lists, DEFAULT_LIST_CACHE);
    this.privateListCache = { ...this.listCache, cacheScope: 'private' };
    this.readCache = cacheHints(cache?.resources, DEFAULT_READ_CACHE);
    this.discoverCache = cacheHints(cache?.discover, DEFAULT_LIST_CACHE);
  }

  /** The version rung for a request that passed the message rung: the error to answer with, or undefined. */
  refuse(request: JsonRpcRequest): JsonRpcResponse | undefined {
    if (request.method === 'initialize') return initializeRemovedError(request);
    return checkProtocolVersion(request) ?? undefined;
  }

  /** Methods earlier revisions had: answered with -32601 even where a family could serve them. */
  removed(method: string): boolean {
    return REMOVED_METHODS.has(method);
  }

  /** A family's answer as a 2026-07-28 result; the answer's own objects are reused, not copied. */
  present(answer: MethodResult): PresentedResult {
    const result =
      answer instanceof Cacheable
        ? Object.assign(mayCarryPage(answer.result), this.hints(answer.hint))
        : answer instanceof InterimResult
          ? inputRequired(answer)
          : answer;
    // The fields every 2026-07-28 result carries, whatever the family's type says of them.
    const fields: EraFields = result;
    if (fields.resultType === undefined) fields.resultType = 'complete';
    const own = fields._meta;
    if (own === undefined) {
      // A literal with its key written out: V8 builds it from one boilerplate, where a computed key or an
      // assignment to an empty object each define the property through a runtime call, on every response.
      fields._meta = { 'io.modelcontextprotocol/serverInfo': this.serverInfo } satisfies Record<
        typeof META_SERVER_INFO,
        Implementation
      >;
    } else {
      const meta: MetaObject = isPlainObject(own) ? { ...own } : {};
      meta[META_SERVER_INFO] = this.serverInfo;
      fields._meta = meta;
    }
    return result;
  }

  private hints(hint: CacheHint): CacheHints {
    if (hint.kind === 'list') return hint.private ? this.privateListCache : this.listCache;
    if (hint.kind === 'discover') return this.discoverCache;
    const hints = hint.retry
      ? RETRY_CACHE
      : hint.override
        ? { ...this.readCache, ...definedHints(hint.override) }
        : this.readCache;
    return hint.private && hints.cacheScope !== 'private' ? { ...hints, cacheScope: 'private' } : hints;
  }
}

function inputRequired(interim: InterimResult): InputRequiredResult {
  const result: InputRequiredResult = {
    resultType: 'input_required',
    inputRequests: interim.inputRequests,
    requestState: interim.requestState,
  };
  if (interim.toolCall) {
    result.requests = interim.inputRequests;
    result.content = [{ type: 'text', text: INPUT_REQUIRED_TEXT }];
  }
  return result;
}
