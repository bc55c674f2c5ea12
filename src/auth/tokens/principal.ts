/**
 * Who a verified access token speaks for. The identity (issuer, subject, client) is the object's own data;
 * the scopes, claims and expiry are accessors. Its JSON is the token's claims, from which the server's one
 * caller identity is read (issuer + subject, else issuer + client, else the claims that a refresh keeps), so a
 * multi-round call or a task survives a token refresh or a scope step-up but not a change of user or client.
 */
export class McpPrincipal {
  readonly issuer: string | undefined;
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  readonly #scopes: readonly string[];
  readonly #claims: Readonly<Record<string, unknown>>;
  readonly #revalidateAt: number | undefined;

  /**
   * @param revalidateAt when the verifier must be asked again, in epoch milliseconds, although the token may
   *   not have expired (an introspected token: a revocation is seen then); listen streams end at the earlier
   *   of this and `exp`.
   */
  constructor(claims: Record<string, unknown>, revalidateAt?: number) {
    this.issuer = stringClaim(claims.iss);
    this.subject = stringClaim(claims.sub);
    this.clientId = stringClaim(claims.client_id) ?? stringClaim(claims.azp);
    this.#scopes = Object.freeze(standardScopes(claims) ?? []);
    this.#claims = Object.freeze({ ...claims });
    this.#revalidateAt = revalidateAt;
  }

  /** The granted scopes: the standard `scope` (RFC 9068 / RFC 7662) or `scp`; a non-standard `scopes` claim is ignored. */
  get scopes(): readonly string[] {
    return this.#scopes;
  }

  /** Every claim of the token, or every member of the introspection response. */
  get claims(): Readonly<Record<string, unknown>> {
    return this.#claims;
  }

  /** When the token expires, in seconds since the epoch. */
  get expiresAt(): number | undefined {
    return typeof this.#claims.exp === 'number' ? this.#claims.exp : undefined;
  }

  /** The token's claims: what the caller identity is read from, as from a Passport user that is a token's payload. */
  toJSON(): Record<string, unknown> {
    return { ...this.#claims };
  }

  /** When the credential stops being trusted here, in epoch milliseconds: `exp`, or earlier when it must be revalidated. */
  get trustedUntil(): number | undefined {
    const exp = this.expiresAt === undefined ? undefined : this.expiresAt * 1000;
    if (this.#revalidateAt === undefined) return exp;
    return exp === undefined ? this.#revalidateAt : Math.min(exp, this.#revalidateAt);
  }
}

/**
 * The scopes of any principal. An McpPrincipal's own; otherwise the standard `scope` (a space-separated
 * string) or `scp` (a string or an array) first, and only without either the `scopes` array many Passport
 * strategies set, so a token cannot add scopes through a non-standard claim beside the standard one.
 */
export function scopesOf(principal: unknown): string[] {
  if (principal instanceof McpPrincipal) return [...principal.scopes];
  if (typeof principal !== 'object' || principal === null) return [];
  const p = principal as Record<string, unknown>;
  return standardScopes(p) ?? scopeList(p.scopes);
}

/**
 * When the credential behind any principal stops being trusted, in milliseconds since the epoch: an
 * McpPrincipal's `trustedUntil`, or the `exp` claim (seconds) of a principal that is a token's payload, as a
 * Passport JWT strategy's user is. Undefined for a credential that does not say, which then never expires here.
 */
export function credentialExpiryOf(principal: unknown): number | undefined {
  if (principal instanceof McpPrincipal) return principal.trustedUntil;
  if (typeof principal !== 'object' || principal === null) return undefined;
  const exp = (principal as { exp?: unknown }).exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
}

function standardScopes(claims: Record<string, unknown>): string[] | undefined {
  if (claims.scope !== undefined) return scopeList(claims.scope);
  if (claims.scp !== undefined) return scopeList(claims.scp);
  return undefined;
}

function scopeList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string');
  return [];
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
