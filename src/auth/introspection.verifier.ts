import type { IntrospectionVerifierOptions } from './auth-options.js';
import { IntrospectionCache } from './introspection.cache.js';
import { McpPrincipal } from './principal.js';
import { InvalidTokenError, TokenVerificationUnavailableError, type TokenVerifier } from './token-verifier.js';

/**
 * Verifies opaque tokens by asking the authorization server (RFC 7662). An active token must also name this
 * resource in `aud` and, when configured, the expected `iss`; an expired `exp` is refused even if the server
 * still says active.
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

  constructor(
    private readonly options: IntrospectionVerifierOptions,
    audience: string | string[],
  ) {
    new URL(options.endpoint); // fail at start-up, not on the first request
    this.audiences = new Set([audience].flat());
    this.issuers = options.issuer === undefined ? undefined : new Set([options.issuer].flat());
    this.headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...options.headers };
    if (options.clientId !== undefined) {
      // RFC 6749 §2.3.1: the credentials are form-encoded before they are joined for Basic.
      const credentials = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret ?? '')}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    this.now = options.now ?? Date.now;
    this.acceptedTtlMs = nonNegative('cacheTtlMs', options.cacheTtlMs ?? 60_000);
    this.refusedTtlMs = nonNegative('negativeCacheTtlMs', options.negativeCacheTtlMs ?? Math.min(5_000, this.acceptedTtlMs));
    const maxEntries = options.cacheMaxEntries ?? 10_000;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new Error('auth.introspection.cacheMaxEntries must be a positive integer');
    this.accepted = new IntrospectionCache(maxEntries);
    this.refused = new IntrospectionCache(maxEntries);
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
      pending = this.introspectAndRemember(token, key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async introspectAndRemember(token: string, key: string): Promise<McpPrincipal> {
    let principal: McpPrincipal;
    try {
      principal = this.check(await this.introspect(token));
    } catch (error) {
      if (error instanceof InvalidTokenError && this.refusedTtlMs > 0) this.refused.set(key, error.message, this.now() + this.refusedTtlMs);
      throw error;
    }
    if (this.acceptedTtlMs > 0) {
      const exp = principal.expiresAt;
      const ttlEnd = this.now() + this.acceptedTtlMs;
      this.accepted.set(key, principal, exp === undefined ? ttlEnd : Math.min(ttlEnd, exp * 1000));
    }
    return principal;
  }

  private check(response: Record<string, unknown>): McpPrincipal {
    if (response.active !== true) throw new InvalidTokenError('The access token is not active');
    if (typeof response.exp === 'number' && response.exp * 1000 <= this.now()) throw new InvalidTokenError('The access token expired');
    const audiences = [response.aud].flat().filter((a): a is string => typeof a === 'string');
    if (!audiences.some((a) => this.audiences.has(a))) throw new InvalidTokenError('The access token was not issued for this resource');
    if (this.issuers && !(typeof response.iss === 'string' && this.issuers.has(response.iss))) {
      throw new InvalidTokenError("The access token's iss claim is not accepted");
    }
    return new McpPrincipal(response);
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
    if (!response.ok) throw new TokenVerificationUnavailableError(`The introspection endpoint answered ${response.status}`);
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw new TokenVerificationUnavailableError('The introspection endpoint did not answer JSON', { cause: error });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new TokenVerificationUnavailableError('The introspection endpoint did not answer a JSON object');
    }
    return body as Record<string, unknown>;
  }
}

function nonNegative(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) throw new Error(`auth.introspection.${name} must be a number of milliseconds, 0 or more`);
  return value;
}
