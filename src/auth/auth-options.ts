import type { JSONWebKeySet } from 'jose';

/** Verifies JWT access tokens (RFC 9068) locally, against the authorization server's keys. */
export interface JwtVerifierOptions {
  /** The accepted `iss` value(s): the authorization server's issuer identifier. */
  issuer: string | string[];
  /** Where the authorization server publishes its keys; fetched on first use and cached. */
  jwksUri?: string;
  /** A fixed key set instead of `jwksUri` (tests, or keys distributed out of band). */
  jwks?: JSONWebKeySet;
  /** Accepted signature algorithms. Default: the asymmetric JWS algorithms (never `none` or HMAC). */
  algorithms?: string[];
  /** Accepted `aud` values. Default: the canonical `resource` URI, and nothing else. */
  audience?: string | string[];
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. Default 5. */
  clockToleranceSec?: number;
  /** Timeout of one JWKS fetch, in milliseconds. Default 5000. */
  jwksTimeoutMs?: number;
}

/** Asks the authorization server about each token (RFC 7662), for opaque tokens. */
export interface IntrospectionVerifierOptions {
  /** The introspection endpoint. */
  endpoint: string;
  /** This resource server's client credentials, sent as HTTP Basic (`client_secret_basic`). */
  clientId?: string;
  clientSecret?: string;
  /** Extra request headers, e.g. a bearer token of the resource server itself. */
  headers?: Record<string, string>;
  /** Accepted `aud` values. Default: the canonical `resource` URI. A response without `aud` is refused. */
  audience?: string | string[];
  /** Accepted `iss` values, checked when given. */
  issuer?: string | string[];
  /** Timeout of one introspection call, in milliseconds. Default 5000. */
  timeoutMs?: number;
  /**
   * How long an accepted token is trusted without asking again, in milliseconds; never past its `exp`. This is
   * also how long a revocation can go unnoticed. Default 60000; `0` asks on every request.
   */
  cacheTtlMs?: number;
  /** How long a refused token stays refused without asking again, in milliseconds. Default 5000, or `cacheTtlMs` if shorter. */
  negativeCacheTtlMs?: number;
  /** How many accepted (and, separately, refused) tokens are remembered; the least recently used go first. Default 10000. */
  cacheMaxEntries?: number;
  /** The clock, in milliseconds since the epoch, for `exp` and cache expiry. Default `Date.now`; tests set a fake one. */
  now?: () => number;
}

/**
 * The `auth` option of `McpModule`: makes the MCP endpoint an OAuth 2.1 resource server. Give exactly one way
 * to establish the principal: `jwt`, `introspection`, `verify`, or `fromRequest` (an existing Nest guard).
 */
export interface McpAuthOptions {
  /** The canonical URI of this MCP server (RFC 8707), e.g. `https://mcp.example.com/mcp`; tokens must name it as audience. */
  resource: string;
  /** Issuer URLs of the authorization servers that issue tokens for this resource (at least one). */
  authorizationServers: string[];
  /** Scopes this resource understands, published in the metadata and asked for in a 401 challenge. */
  scopesSupported?: string[];
  /** Scopes named in the 401 challenge. Default: `scopesSupported`. */
  challengeScopes?: string[];
  /** Scopes that include others, e.g. `{ 'files:admin': ['files:write'], 'files:write': ['files:read'] }`. */
  scopeHierarchy?: Record<string, string[]>;
  /** Where clients find the metadata. Default: the path-inserted well-known URL of `resource`. */
  resourceMetadataUrl?: string;
  /** More members of the metadata document (`resource_name`, `resource_documentation`, …). */
  resourceMetadata?: Record<string, unknown>;
  jwt?: JwtVerifierOptions;
  introspection?: IntrospectionVerifierOptions;
  /**
   * Verifies a token yourself and returns the principal (falsy or a throw: 401 `invalid_token`). It must check
   * that the token was issued for `resource`; throw `TokenVerificationUnavailableError` for a 503.
   */
  verify?: (token: string) => unknown;
  /**
   * Takes the principal an existing guard already established, e.g. `(req) => req.user` after a Passport guard.
   * No token is verified here; a request without a principal gets the 401 challenge.
   */
  fromRequest?: (request: any) => unknown;
  /** Reads the granted scopes of a principal. Default: `scopes`, `scope` or `scp`. */
  scopesOf?: (principal: any) => readonly string[];
}
