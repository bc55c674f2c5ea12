import type { McpCallerOptions } from '../../server/access/caller-identity.js';
import type { JSONWebKeySet } from 'jose';

/**
 * Verifies JWT access tokens (RFC 9068) locally: against the authorization server's keys (`jwksUri` or `jwks`),
 * or, for tokens the app issues itself, against its own HMAC `secret`.
 */
export interface JwtVerifierOptions {
  /**
   * The accepted `iss` value(s): the authorization server's issuer identifier. Required with `jwksUri` or `jwks`;
   * with `secret`, checked only when given (tokens signed with the app's own secret are the app's own).
   */
  issuer?: string | string[];
  /** Where the authorization server publishes its keys; fetched on first use and cached. */
  jwksUri?: string;
  /** A fixed key set instead of `jwksUri` (tests, or keys distributed out of band). */
  jwks?: JSONWebKeySet;
  /**
   * The shared secret of tokens the app signs itself (`JwtModule.register({ secret })` of @nestjs/jwt, or a
   * passport-jwt `secretOrKey`): the only way HMAC algorithms (HS256, HS384, HS512) are accepted, never with
   * `jwksUri` or `jwks`, and never inferred from a key. At least as many bytes as the algorithm's hash (32 for
   * HS256, RFC 7518 §3.2).
   */
  secret?: string | Uint8Array;
  /**
   * Accepted signature algorithms. Default: the asymmetric JWS algorithms (never `none` or HMAC); with `secret`,
   * `['HS256']` (what @nestjs/jwt signs with), and only HS256, HS384 and HS512 may be named.
   */
  algorithms?: string[];
  /** Accepted `aud` values. Default: the canonical `resource` URI, and nothing else. */
  audience?: string | string[];
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. Default 5. */
  clockToleranceSec?: number;
  /** Timeout of one JWKS fetch, in milliseconds. Default 5000. */
  jwksTimeoutMs?: number;
  /**
   * Accepted `typ` header values (case-insensitive, `application/` optional). Default `at+jwt` (RFC 9068), so
   * ID tokens and other JWTs signed by the same keys are refused; add `JWT` for an authorization server that
   * types its access tokens so, or `false` to skip the check.
   */
  typ?: string | string[] | false;
  /** Accept a plain `http:` `jwksUri` on a host other than loopback (a trusted network). Default false: refused at start-up. */
  allowInsecureHttp?: boolean;
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
  /** Accepted `aud` values. Default: the canonical `resource` URI. */
  audience?: string | string[];
  /**
   * Whether an answer must carry `aud`. Default true: an answer without `aud` is refused. Many authorization
   * servers omit it; set false to accept those (an answer that has `aud` must still name this resource), and
   * make sure the server issues tokens introspectable here only for this resource.
   */
  requireAudience?: boolean;
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
  /** Largest introspection answer read, in bytes; a bigger one is a 503. Default 65536. */
  maxResponseBytes?: number;
  /** Most introspection calls in flight at once; a token that would need one more gets a 503 (Retry-After). Default 16. */
  maxConcurrentCalls?: number;
  /**
   * Most introspection calls started per second (a token bucket holding as many), so a flood of made-up tokens
   * costs the authorization server a bounded rate; beyond it, unknown tokens get a 503 (Retry-After) while cached
   * ones keep working. Default 50; `Infinity` disables.
   */
  maxCallsPerSecond?: number;
  /** Accept a plain `http:` endpoint on a host other than loopback (a trusted network). Default false: refused at start-up. */
  allowInsecureHttp?: boolean;
}

/**
 * Whether an `auth` option makes the endpoint a resource server, or only says how callers are identified
 * (`{ identify }`, for an app whose own guard authenticates).
 */
export function isResourceServer(auth: McpAuthOptions | McpCallerOptions | undefined): auth is McpAuthOptions {
  return auth !== undefined && Object.keys(auth).some((key) => key !== 'identify');
}

/**
 * The `auth` option of `McpModule`: makes the MCP endpoint an OAuth 2.1 resource server. Give exactly one way
 * to establish the principal: `jwt`, `introspection`, `verify`, or `fromRequest` (an existing Nest guard).
 */
export interface McpAuthOptions extends McpCallerOptions {
  /** The canonical URI of this MCP server (RFC 8707), e.g. `https://mcp.example.com/mcp`; tokens must name it as audience. */
  resource: string;
  /**
   * Issuer URLs of the authorization servers that issue tokens for this resource, published in the metadata so
   * clients can get a token. Required with `jwt.jwksUri`, `jwt.jwks` and `introspection`. Optional when the app
   * issues its own tokens (`jwt.secret`, `verify`, `fromRequest`): without it the metadata names no server.
   */
  authorizationServers?: string[];
  /** Scopes this resource understands, published in the metadata and asked for in a 401 challenge. */
  scopesSupported?: string[];
  /**
   * Scopes named in the 401 challenge: what a client asks for in its first token. Default: the supported scopes
   * that include no other one in `scopeHierarchy` (the least privileged), so a first token does not carry
   * `admin`; more are asked for by the 403 step-up challenge when a call needs them.
   */
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
   * Verifies a token yourself and returns the principal, an object. Anything else (`false`, `null`, a string)
   * or a thrown `InvalidTokenError` is a 401 `invalid_token`; any other throw means verification could not be
   * done (your database is down): 503. It must check that the token was issued for `resource`.
   */
  verify?: (token: string) => unknown;
  /**
   * Takes the principal an existing guard already established, e.g. `(req) => req.user` after a Passport guard.
   * No token is verified here. Only an object is a principal: anything else (`undefined`, or the `false` an
   * optional Passport guard leaves) gets the 401 challenge.
   */
  fromRequest?: (request: any) => unknown;
  /**
   * What the app's guards and interceptors find as `request.user` on a call the module authenticated (`jwt`,
   * `introspection`, `verify`), so they read the caller as on the app's other routes. Default: with `jwt` and
   * `introspection`, a plain object of the token's claims (`{ sub, roles, … }`, what `@nestjs/jwt` verifies to);
   * with `verify`, what it returned. Give the mapping a passport-jwt strategy's `validate(payload)` makes, e.g.
   * `({ claims }) => ({ userId: claims.sub, roles: claims.roles })`; it may return a promise (a user looked up).
   * A result that is not an object is a 401 `invalid_token`. Handlers still get the principal as
   * `ctx.principal`. Not with `fromRequest`, whose `request.user` is the app's own already.
   */
  toUser?: (principal: any) => unknown;
  /** Reads the granted scopes of a principal. Default: the standard `scope` or `scp`, else a `scopes` array. */
  scopesOf?: (principal: any) => readonly string[];
}
