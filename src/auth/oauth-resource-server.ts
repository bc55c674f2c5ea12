import type { IncomingMessage } from 'node:http';
import type { HttpAuthentication, HttpAuthenticationRefusal, McpHttpAuthenticator } from '../http/mcp-http-options.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { checkRequiredScopes } from '../server/access/required-scopes.js';
import type { McpAuthOptions } from './tokens/auth-options.js';
import { bearerToken } from './bearer-token.js';
import { IntrospectionVerifier } from './tokens/introspection-verifier.js';
import { JwtVerifier } from './tokens/jwt-verifier.js';
import { credentialExpiryOf, McpPrincipal, scopesOf } from './tokens/principal.js';
import {
  canonicalResourceUri,
  defaultResourceMetadataUrl,
  type ProtectedResourceMetadata,
} from './protected-resource-metadata.js';
import { ScopeHierarchy } from './scope-hierarchy.js';
import { InvalidTokenError, TokenVerificationUnavailableError, type TokenVerifier } from './tokens/token-verifier.js';
import { readsAsExpired } from './unverified-expiry.js';
import { bearerChallenge, type BearerChallenge } from './www-authenticate.js';
import { McpConfigurationError } from '../server/errors/configuration-error.js';
import {
  AUTH_ONE_WAY,
  AUTH_SERVERS_REQUIRED,
  AUTH_TO_USER_WITH_FROM_REQUEST,
  URL_NOT_ABSOLUTE,
} from '../server/errors/configuration-messages.js';

// MCP authorization: servers SHOULD NOT advertise or challenge for offline_access; refresh is the client's business.
const OFFLINE_ACCESS = 'offline_access';

/**
 * The MCP endpoint as an OAuth 2.1 resource server: reads the Bearer token from the Authorization header only,
 * verifies it (JWT, introspection, a function, or trusts a principal an upstream guard established), and
 * answers failures with the RFC 6750 / RFC 9728 challenges. Everything is configured and checked once, here.
 */
export class OAuthResourceServer implements McpHttpAuthenticator {
  /** The canonical resource URI: the audience every token must carry. */
  readonly resource: string;
  readonly resourceMetadataUrl: string;
  readonly metadata: ProtectedResourceMetadata;
  /** A token is read from the Authorization header alone, unless the principal is what a guard set. */
  readonly fromHeaders: boolean;
  /** With `fromRequest`, a caller the guards let through may still be refused: before the body is read. */
  readonly afterGuards: boolean;
  private readonly verifier?: TokenVerifier;
  private readonly fromRequest?: (request: unknown) => unknown;
  private readonly scopesOf: (principal: unknown) => readonly string[];
  private readonly toUser: (principal: unknown) => unknown;
  private readonly hierarchy: ScopeHierarchy;
  private readonly challengeScopes?: readonly string[];

  constructor(options: McpAuthOptions) {
    this.resource = canonicalResourceUri(options.resource);
    const servers = authorizationServers(options);
    const scopesSupported = scopeList('auth.scopesSupported', options.scopesSupported);
    this.hierarchy = new ScopeHierarchy(options.scopeHierarchy);
    this.challengeScopes =
      scopeList('auth.challengeScopes', options.challengeScopes) ?? this.hierarchy.leastPrivileged(scopesSupported);
    this.resourceMetadataUrl = options.resourceMetadataUrl ?? defaultResourceMetadataUrl(this.resource);
    this.metadata = {
      ...options.resourceMetadata,
      resource: this.resource,
      ...(servers ? { authorization_servers: servers } : {}),
      ...(scopesSupported ? { scopes_supported: [...scopesSupported] } : {}),
      bearer_methods_supported: ['header'],
    };
    this.scopesOf = options.scopesOf ?? scopesOf;

    const ways = (['jwt', 'introspection', 'verify', 'fromRequest'] as const).filter((k) => options[k] !== undefined);
    if (ways.length !== 1) {
      throw new McpConfigurationError(AUTH_ONE_WAY(ways));
    }
    if (options.jwt) this.verifier = new JwtVerifier(options.jwt, options.jwt.audience ?? this.resource);
    else if (options.introspection)
      this.verifier = new IntrospectionVerifier(options.introspection, options.introspection.audience ?? this.resource);
    else if (options.verify) this.verifier = functionVerifier(options.verify);
    else this.fromRequest = options.fromRequest;
    if (options.toUser !== undefined && options.fromRequest !== undefined)
      throw new McpConfigurationError(AUTH_TO_USER_WITH_FROM_REQUEST);
    this.toUser = options.toUser ?? claimsAsUser;
    this.fromHeaders = this.fromRequest === undefined;
    this.afterGuards = !this.fromHeaders;
  }

  /** Resolves when the verifier can work, so a missing library fails the start-up and not the first request. */
  async ready(): Promise<void> {
    await this.verifier?.ready?.();
  }

  async authenticate(req: IncomingMessage, httpRequest: unknown): Promise<HttpAuthentication> {
    if (this.fromRequest) {
      const principal = this.fromRequest(httpRequest);
      return isPrincipal(principal) ? this.authenticated(principal) : this.unauthorized();
    }
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return this.unauthorized();
    if (token === null)
      return this.unauthorized({ error: 'invalid_token', errorDescription: 'The Bearer token is malformed' });
    let principal: unknown;
    try {
      principal = await this.verifier!.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError)
        return this.unauthorized({ error: 'invalid_token', errorDescription: error.message });
      if (error instanceof TokenVerificationUnavailableError) {
        const headers = error.retryAfterSec === undefined ? undefined : { 'retry-after': String(error.retryAfterSec) };
        return {
          ok: false,
          status: 503,
          code: ErrorCode.InternalError,
          message: `Token verification unavailable: ${error.message}`,
          headers,
        };
      }
      return internalError('the access token could not be verified');
    }
    if (!isPrincipal(principal))
      return this.unauthorized({ error: 'invalid_token', errorDescription: 'The access token is invalid' });
    if (
      typeof httpRequest === 'object' &&
      httpRequest !== null &&
      (httpRequest as RequestWithUser).user === undefined
    ) {
      const refused = await this.setUser(httpRequest as RequestWithUser, principal);
      if (refused) return refused;
    }
    return this.authenticated(principal);
  }

  /**
   * Guards and interceptors around tools find the caller where Passport puts it, in the shape the app's own
   * authentication gives it there, so a `RolesGuard` reading `request.user.roles` decides as on any route.
   */
  private async setUser(httpRequest: RequestWithUser, principal: object): Promise<HttpAuthenticationRefusal | void> {
    let user: unknown;
    try {
      const mapped = this.toUser(principal);
      user = isThenable(mapped) ? await mapped : mapped;
    } catch {
      return internalError('auth.toUser failed for the caller');
    }
    if (!isPrincipal(user))
      return this.unauthorized({ error: 'invalid_token', errorDescription: 'The access token names no user' });
    httpRequest.user = user;
  }

  /**
   * The MCP 401 challenge for a request the app's own guard refused before this server saw it, as this server
   * would have worded it: no `error` without a token (RFC 6750 §3.1), `invalid_token` with one, and an expired
   * token told apart from a bad one, so a client knows whether refreshing will help. With a verifier the token
   * is checked to say why; without one (`fromRequest`) its unverified `exp` is read for that only.
   */
  async refusal(req: IncomingMessage): Promise<HttpAuthenticationRefusal> {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return this.unauthorized();
    if (token === null)
      return this.unauthorized({ error: 'invalid_token', errorDescription: 'The Bearer token is malformed' });
    if (!this.verifier) {
      const errorDescription = readsAsExpired(token) ? 'The access token expired' : 'The access token is invalid';
      return this.unauthorized({ error: 'invalid_token', errorDescription });
    }
    try {
      await this.verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError)
        return this.unauthorized({ error: 'invalid_token', errorDescription: error.message });
    }
    return this.unauthorized({ error: 'invalid_token', errorDescription: 'The access token was refused' });
  }

  insufficientScopeHeaders(requiredScopes: readonly string[]): Record<string, string> {
    return this.challenge({
      error: 'insufficient_scope',
      scopes: requiredScopes,
      errorDescription: `This request requires the scopes: ${requiredScopes.join(' ')}`,
    });
  }

  private authenticated(principal: unknown): HttpAuthentication {
    return {
      ok: true,
      principal,
      scopes: this.hierarchy.expand(this.scopesOf(principal) ?? []),
      credentialExpiresAt: credentialExpiryOf(principal),
    };
  }

  private unauthorized(details: Pick<BearerChallenge, 'error' | 'errorDescription'> = {}): HttpAuthenticationRefusal {
    return {
      ok: false,
      status: 401,
      code: ErrorCode.Unauthorized,
      message: `Unauthorized: ${details.errorDescription ?? 'this server requires a Bearer access token'}`,
      headers: this.challenge({ ...details, scopes: this.challengeScopes }),
    };
  }

  private challenge(challenge: Omit<BearerChallenge, 'resourceMetadata'>): Record<string, string> {
    return { 'www-authenticate': bearerChallenge({ ...challenge, resourceMetadata: this.resourceMetadataUrl }) };
  }
}

/**
 * Required where tokens come from elsewhere (a JWKS, an introspection endpoint): clients must learn where to get
 * one. An app that issues its own (an HMAC secret, its own `verify` or guard) may name none.
 */
function authorizationServers(options: McpAuthOptions): string[] | undefined {
  const servers = options.authorizationServers;
  const external =
    options.introspection !== undefined || (options.jwt !== undefined && options.jwt.secret === undefined);
  if (servers === undefined && !external) return undefined;
  if (!Array.isArray(servers) || servers.length === 0) throw new McpConfigurationError(AUTH_SERVERS_REQUIRED);
  for (const server of servers) {
    if (typeof server !== 'string' || !URL.canParse(server))
      throw new McpConfigurationError(URL_NOT_ABSOLUTE('auth.authorizationServers', server));
  }
  return [...servers];
}

function scopeList(name: string, scopes: string[] | undefined): string[] | undefined {
  return checkRequiredScopes(name, scopes)?.filter((s) => s !== OFFLINE_ACCESS);
}

type RequestWithUser = { user?: unknown };

function internalError(what: string): HttpAuthenticationRefusal {
  return { ok: false, status: 500, code: ErrorCode.InternalError, message: `Internal error: ${what}` };
}

/**
 * A verified token's claims as a plain object: what `@nestjs/jwt`'s `verifyAsync` returns and the Nest docs' guard
 * puts on `request.user`. A fresh object per call, so a guard that adds to it changes nothing the module keeps.
 */
function claimsAsUser(principal: unknown): unknown {
  return principal instanceof McpPrincipal ? principal.toJSON() : principal;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * Only an object the verifier positively returned establishes a principal: `false` (what an optional Passport
 * guard leaves in `request.user`), `0`, `''`, `null` or `true` never do, so the `token === good && user` idiom
 * cannot let a bad token in.
 */
function isPrincipal(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A user-supplied `verify`: an `InvalidTokenError` it throws is an invalid token (401); anything else it throws
 * (its database is down) means the token could not be checked, a 503, so the client keeps a token that may be good.
 */
function functionVerifier(verify: (token: string) => unknown): TokenVerifier {
  return {
    async verify(token) {
      try {
        return await verify(token);
      } catch (error) {
        if (error instanceof InvalidTokenError || error instanceof TokenVerificationUnavailableError) throw error;
        throw new TokenVerificationUnavailableError('The verify function failed', { cause: error });
      }
    },
  };
}
