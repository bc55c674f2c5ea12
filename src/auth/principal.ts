/**
 * Who a verified access token speaks for. The identity (issuer, subject, client) is the object's own data;
 * the scopes, claims and expiry are accessors. Request state is bound to the principal's own enumerable data,
 * so a multi-round call survives a token refresh or a scope step-up but not a change of user or client.
 */
export class McpPrincipal {
  readonly issuer: string | undefined;
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  readonly #scopes: readonly string[];
  readonly #claims: Readonly<Record<string, unknown>>;

  constructor(claims: Record<string, unknown>) {
    this.issuer = stringClaim(claims.iss);
    this.subject = stringClaim(claims.sub);
    this.clientId = stringClaim(claims.client_id) ?? stringClaim(claims.azp);
    this.#scopes = Object.freeze(scopesOf(claims));
    this.#claims = Object.freeze({ ...claims });
  }

  /** The granted scopes (`scope` as in RFC 9068 / RFC 7662, or `scp`). */
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
}

/**
 * The scopes of any principal: `scopes` (an array, as McpPrincipal and many Passport strategies have), `scope`
 * (a space-separated string) or `scp` (a string or an array).
 */
export function scopesOf(principal: unknown): string[] {
  if (typeof principal !== 'object' || principal === null) return [];
  const p = principal as { scopes?: unknown; scope?: unknown; scp?: unknown };
  for (const value of [p.scopes, p.scope, p.scp]) {
    if (typeof value === 'string') return value.split(' ').filter(Boolean);
    if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string');
  }
  return [];
}

/**
 * When the credential behind any principal expires, in milliseconds since the epoch: an McpPrincipal's
 * `expiresAt`, or the `exp` claim (seconds) of a principal that is a token's payload, as a Passport JWT
 * strategy's user is. Undefined for a credential that does not say, which then never expires here.
 */
export function credentialExpiryOf(principal: unknown): number | undefined {
  if (principal instanceof McpPrincipal) return principal.expiresAt === undefined ? undefined : principal.expiresAt * 1000;
  if (typeof principal !== 'object' || principal === null) return undefined;
  const exp = (principal as { exp?: unknown }).exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
