import type { IntrospectionVerifierOptions } from './auth-options.js';
import { trustedEndpointUrl } from './endpoint-url.js';
import { IntrospectionBudget } from './introspection-budget.js';
import { IntrospectionCache } from './introspection-cache.js';
import { McpPrincipal } from './principal.js';
import { InvalidTokenError, TokenVerificationUnavailableError, type TokenVerifier } from './token-verifier.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { NOT_MILLISECONDS, NOT_POSITIVE_INTEGER } from '../../server/errors/configuration-messages.js';

// RFC 7662 §2.2 `token_type` is the OAuth token type (RFC 6749 §7.1, `Bearer`); some servers put the kind of
// token there instead. Either way only an access token may be used here: never a refresh or ID token.
const ACCESS_TOKEN_TYPES: ReadonlySet<string> = new Set([
  'bearer',
  'access_token',
  'urn:ietf:params:oauth:token-type:access_token',
]);
// Time after which a request refused for lack of introspection capacity may be retried.
const BUSY_RETRY_AFTER_SEC = 1;
// How long a listen stream of an introspected token lives when `cacheTtlMs` is 0 (ask every request).
const STREAM_REVALIDATE_MS = 60_000;

/**
 * Verifies opaque tokens by asking the authorization server (RFC 7662). An active token must also name this
 * resource in `aud` (unless `requireAudience: false` and the answer has none), have a numeric `exp` in the
 * future and a numeric `nbf` in the past when it has them, be an access token (`token_type`), and carry the
 * expected `iss` when configured. An answer larger than `maxResponseBytes` is not read.
 *
 * Outcomes are remembered so that a client's every request is not also a request to the authorization server:
 * an accepted token until the earlier of its `exp` and `cacheTtlMs`, a refused one for a few seconds, which
 * spares the server a client retrying a dead token without keeping a just-issued token out for long. Requests
 * that carry the same token while it is being introspected wait for that one answer instead of asking again.
 * An outage (a 503) is not remembered: the next request asks again.
 */
export class IntrospectionVerifier implements TokenVerifier {
  private readonly audiences: ReadonlySet<string>;
  private readonly issuers: ReadonlySet<string> | undefined;
  private readonly headers: Record<string, string>;
  private readonly now: () => number;
  private readonly acceptedTtlMs: number;
  private readonly refusedTtlMs: number;
  // Two caches, so a flood of bad tokens can evict only other bad tokens, never the accepted ones.
  private readonly accepted: IntrospectionCache<McpPrincipal>;
  private readonly refused: IntrospectionCache<string>;
  private readonly inFlight = new Map<string, Promise<McpPrincipal>>();
  private readonly budget: IntrospectionBudget;
  private readonly maxResponseBytes: number;
  private readonly requireAudience: boolean;

  constructor(
    private readonly options: IntrospectionVerifierOptions,
    audience: string | string[],
  ) {
    trustedEndpointUrl('auth.introspection.endpoint', options.endpoint, options.allowInsecureHttp); // at start-up, not on the first request
    this.audiences = new Set([audience].flat());
    this.issuers = options.issuer === undefined ? undefined : new Set([options.issuer].flat());
    this.headers = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      ...options.headers,
    };
    if (options.clientId !== undefined) {
      // RFC 6749 §2.3.1: the credentials are form-encoded before they are joined for Basic.
      const credentials = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret ?? '')}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    this.now = options.now ?? Date.now;
    this.acceptedTtlMs = nonNegative('cacheTtlMs', options.cacheTtlMs ?? 60_000);
    this.refusedTtlMs = nonNegative(
      'negativeCacheTtlMs',
      options.negativeCacheTtlMs ?? Math.min(5_000, this.acceptedTtlMs),
    );
    const maxEntries = options.cacheMaxEntries ?? 10_000;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
      throw new McpConfigurationError(NOT_POSITIVE_INTEGER('auth.introspection.cacheMaxEntries', maxEntries));
    this.accepted = new IntrospectionCache(maxEntries);
    this.refused = new IntrospectionCache(maxEntries);
    this.budget = new IntrospectionBudget(options.maxConcurrentCalls ?? 16, options.maxCallsPerSecond ?? 50, this.now);
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
    if (!Number.isSafeInteger(this.maxResponseBytes) || this.maxResponseBytes < 1)
      throw new McpConfigurationError(
        NOT_POSITIVE_INTEGER('auth.introspection.maxResponseBytes', this.maxResponseBytes),
      );
    this.requireAudience = options.requireAudience ?? true;
  }

  verify(token: string): Promise<McpPrincipal> {
    const key = IntrospectionCache.keyOf(token);
    const now = this.now();
    const principal = this.accepted.get(key, now);
    if (principal !== undefined) return Promise.resolve(principal);
    const refusal = this.refused.get(key, now);
    if (refusal !== undefined) return Promise.reject(new InvalidTokenError(refusal));
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      if (!this.budget.take()) {
        return Promise.reject(
          new TokenVerificationUnavailableError('Too many tokens are being introspected; retry shortly', {
            retryAfterSec: BUSY_RETRY_AFTER_SEC,
          }),
        );
      }
      pending = this.introspectAndRemember(token, key).finally(() => {
        this.inFlight.delete(key);
        this.budget.release();
      });
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async introspectAndRemember(token: string, key: string): Promise<McpPrincipal> {
    let principal: McpPrincipal;
    try {
      principal = this.check(await this.introspect(token));
    } catch (error) {
      if (error instanceof InvalidTokenError && this.refusedTtlMs > 0)
        this.refused.set(key, error.message, this.now() + this.refusedTtlMs);
      throw error;
    }
    if (this.acceptedTtlMs > 0) this.accepted.set(key, principal, principal.trustedUntil!);
    return principal;
  }

  private check(response: Record<string, unknown>): McpPrincipal {
    if (response.active !== true) throw new InvalidTokenError('The access token is not active');
    const now = this.now();
    const { exp, nbf, aud, token_type: tokenType } = response;
    if (exp !== undefined) {
      if (!isEpochSeconds(exp)) throw new InvalidTokenError("The introspection answer's exp is not a number");
      if (exp * 1000 <= now) throw new InvalidTokenError('The access token expired');
    }
    if (nbf !== undefined && !(isEpochSeconds(nbf) && nbf * 1000 <= now))
      throw new InvalidTokenError('The access token is not valid yet');
    if (
      tokenType !== undefined &&
      !(typeof tokenType === 'string' && ACCESS_TOKEN_TYPES.has(tokenType.toLowerCase()))
    ) {
      throw new InvalidTokenError('The token is not an access token');
    }
    if (aud !== undefined || this.requireAudience) {
      const audiences = [aud].flat().filter((a): a is string => typeof a === 'string');
      if (!audiences.some((a) => this.audiences.has(a)))
        throw new InvalidTokenError('The access token was not issued for this resource');
    }
    if (this.issuers && !(typeof response.iss === 'string' && this.issuers.has(response.iss))) {
      throw new InvalidTokenError("The access token's iss claim is not accepted");
    }
    // Trusted without asking again until the cache entry ends; a listen stream ends then too, so a revocation
    // reaches open streams of tokens without exp as it reaches requests.
    return new McpPrincipal(response, now + (this.acceptedTtlMs > 0 ? this.acceptedTtlMs : STREAM_REVALIDATE_MS));
  }

  private async introspect(token: string): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await fetch(this.options.endpoint, {
        method: 'POST',
        headers: this.headers,
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
        redirect: 'error',
      });
    } catch (error) {
      throw new TokenVerificationUnavailableError('The introspection endpoint could not be reached', { cause: error });
    }
    if (!response.ok)
      throw new TokenVerificationUnavailableError(`The introspection endpoint answered ${response.status}`);
    let body: unknown;
    try {
      body = JSON.parse(await readCapped(response, this.maxResponseBytes));
    } catch (error) {
      if (error instanceof TokenVerificationUnavailableError) throw error;
      throw new TokenVerificationUnavailableError('The introspection endpoint did not answer JSON', { cause: error });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new TokenVerificationUnavailableError('The introspection endpoint did not answer a JSON object');
    }
    return body as Record<string, unknown>;
  }
}

/** The body as UTF-8 text, read no further than `maxBytes`: a bigger answer is refused, not buffered. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new TokenVerificationUnavailableError(`The introspection answer is larger than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(read.value);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isEpochSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function nonNegative(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0))
    throw new McpConfigurationError(NOT_MILLISECONDS(`auth.introspection.${name}`, value));
  return value;
}
