import { canonicalDigest } from '../util/canonical-digest.js';

/**
 * Tells callers apart: returns what identifies the caller behind `principal` (a string, or any JSON value),
 * or `undefined` for the default rule. Everything bound to a caller (tasks, request state, 2025-era replies,
 * per-caller shares) is bound to what this returns, so it must be stable across a token refresh and differ
 * between callers: `(user) => \`${user.tenantId}/${user.id}\``.
 */
export type CallerIdentify = (principal: any) => unknown;

/** The `auth` members the kernel reads. */
export interface McpCallerOptions {
  /**
   * Supplies the caller identity instead of the default rule (issuer + subject + the client the token names,
   * else issuer + client, else the claims).
   */
  identify?: CallerIdentify;
}

/**
 * Who a request speaks for: `undefined` for an anonymous request (no principal: every such caller shares one
 * bucket), `null` for a principal that identifies nobody (its data, without the time-varying claims, is
 * empty: nothing may be bound to it), else an opaque digest.
 */
export type Caller = string | null | undefined;

// Claims a refreshed token of the same caller changes: never part of who the caller is.
const TIME_VARYING: ReadonlySet<string> = new Set(['exp', 'iat', 'nbf', 'jti', 'auth_time']);

/**
 * The one caller identity. The default rule reads the token's standard claims (an McpPrincipal, or a
 * Passport user that is the token's payload): issuer + subject + the token's client (`client_id`, else `azp`)
 * when it names one, else issuer + client, else every claim but the time-varying ones, so a token refresh
 * keeps the identity, two users of one issuer never share it, and one user's two clients do not either.
 */
export class CallerIdentity {
  constructor(private readonly identify?: CallerIdentify) {}

  of(principal: unknown): Caller {
    if (principal === undefined || principal === null) return undefined;
    const own = this.identify?.(principal);
    if (own !== undefined) return identifiesNobody(own) ? null : canonicalDigest(['app', own]);
    return standardIdentity(principal);
  }
}

function standardIdentity(principal: unknown): Caller {
  if (typeof principal !== 'object') return identifiesNobody(principal) ? null : canonicalDigest(['value', principal]);
  // An McpPrincipal's JSON is its token's claims; any other object is read as claims itself.
  const withJson = principal as { toJSON?: () => unknown };
  const data = typeof withJson.toJSON === 'function' ? withJson.toJSON() : principal;
  if (typeof data !== 'object' || data === null)
    return identifiesNobody(data) ? null : canonicalDigest(['value', data]);
  const claims = data as Record<string, unknown>;
  const issuer = typeof claims.iss === 'string' ? claims.iss : null;
  const client = stringClaim(claims.client_id) ?? stringClaim(claims.azp);
  if (typeof claims.sub === 'string' && claims.sub !== '')
    // The client a token names is as stable across refresh as its subject: what one client of a user was given
    // (a request state, a task) is not the same user's in another client.
    return canonicalDigest(client === undefined ? ['sub', issuer, claims.sub] : ['sub', issuer, claims.sub, client]);
  if (client !== undefined) return canonicalDigest(['client', issuer, client]);
  const stable: Record<string, unknown> = {};
  for (const key of Object.keys(claims)) if (!TIME_VARYING.has(key)) stable[key] = claims[key];
  // A plain JSON copy: a member without a JSON form (a function) tells nobody apart.
  const json = JSON.stringify(stable);
  return identifiesNobody(JSON.parse(json)) ? null : canonicalDigest(['claims', JSON.parse(json)]);
}

function identifiesNobody(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return typeof value === 'function' || typeof value === 'symbol';
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
