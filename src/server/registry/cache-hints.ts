import type { CacheHints } from '../../protocol/mcp-types.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { CACHE_SCOPE, CACHE_TTL } from '../errors/configuration-messages.js';

/** Checks configured cache hints (SEP-2549) and fills what is not given from `fallback`; throws on a bad value. */
export function cacheHints(given: Partial<CacheHints> | undefined, fallback: CacheHints): CacheHints {
  const hints = { ...fallback, ...definedHints(given) };
  if (!Number.isSafeInteger(hints.ttlMs) || hints.ttlMs < 0) throw new McpConfigurationError(CACHE_TTL(hints.ttlMs));
  if (hints.cacheScope !== 'public' && hints.cacheScope !== 'private') {
    throw new McpConfigurationError(CACHE_SCOPE(hints.cacheScope));
  }
  return hints;
}

/** The hints that are set, so spreading them over defaults never writes an `undefined`. */
export function definedHints(hints: Partial<CacheHints> | undefined): Partial<CacheHints> {
  const out: Partial<CacheHints> = {};
  if (hints?.ttlMs !== undefined) out.ttlMs = hints.ttlMs;
  if (hints?.cacheScope !== undefined) out.cacheScope = hints.cacheScope;
  return out;
}
