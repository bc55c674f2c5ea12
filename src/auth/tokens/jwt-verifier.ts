import type { JWTVerifyGetKey, JWTVerifyResult } from 'jose';
import type { JwtVerifierOptions } from './auth-options.js';
import { trustedEndpointUrl } from './endpoint-url.js';
import { loadJose, type Jose } from './jose.js';
import { McpPrincipal } from './principal.js';
import { InvalidTokenError, TokenVerificationUnavailableError, type TokenVerifier } from './token-verifier.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import {
  JWT_HMAC_WITHOUT_SECRET,
  JWT_ISSUER_REQUIRED,
  JWT_ONE_KEY_SOURCE,
  JWT_SECRET_ALGORITHMS,
  JWT_SECRET_SHORT,
  JWT_TYP_EMPTY,
} from '../../server/errors/configuration-messages.js';

// RFC 9068 §2.1: access tokens are typed `at+jwt` (media type application/at+jwt), so an ID token or any other
// JWT signed by the same keys is not taken for one.
const ACCESS_TOKEN_TYPE = 'at+jwt';
const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
// RFC 7518 §3.2: an HMAC key is at least as long as the hash output.
const HMAC_KEY_BYTES: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 };

/**
 * Verifies JWT access tokens with `jose`: signature against the JWKS (or the app's own HMAC secret), an allowed
 * algorithm, `iss`, `aud` (this resource, so tokens minted for another service are refused), `exp`, which must
 * be present, and the `typ` header (RFC 9068 §4).
 */
export class JwtVerifier implements TokenVerifier {
  private readonly loaded: Promise<{ jose: Jose; keys: JWTVerifyGetKey | Uint8Array }>;
  private readonly algorithms: string[];
  /** Accepted `typ` header values, lower-case without `application/`; undefined when not checked. */
  private readonly types: ReadonlySet<string> | undefined;

  constructor(
    private readonly options: JwtVerifierOptions,
    private readonly audience: string | string[],
  ) {
    const sources = (['jwksUri', 'jwks', 'secret'] as const).filter((key) => options[key] !== undefined);
    if (sources.length !== 1) throw new McpConfigurationError(JWT_ONE_KEY_SOURCE(sources));
    const noIssuer = !options.issuer || (Array.isArray(options.issuer) && options.issuer.length === 0);
    if (noIssuer && options.secret === undefined) throw new McpConfigurationError(JWT_ISSUER_REQUIRED);
    this.algorithms = options.secret === undefined ? keyAlgorithms(options.algorithms) : hmacAlgorithms(options);
    // Checked now, so a plain-http JWKS URL fails start-up even before jose has loaded.
    const jwksUrl =
      options.jwksUri === undefined
        ? undefined
        : trustedEndpointUrl('auth.jwt.jwksUri', options.jwksUri, options.allowInsecureHttp);
    const secret = options.secret === undefined ? undefined : secretBytes(options.secret, this.algorithms);
    this.loaded = loadJose().then((jose) => ({
      jose,
      keys:
        secret ??
        (jwksUrl
          ? jose.createRemoteJWKSet(jwksUrl, { timeoutDuration: options.jwksTimeoutMs ?? 5000 })
          : jose.createLocalJWKSet(options.jwks!)),
    }));
    // Reported by ready() at start-up; this keeps the rejection from also surfacing as unhandled.
    this.loaded.catch(() => undefined);
    const typ = options.typ ?? ACCESS_TOKEN_TYPE;
    if (typ !== false && [typ].flat().length === 0) throw new McpConfigurationError(JWT_TYP_EMPTY);
    this.types = typ === false ? undefined : new Set([typ].flat().map(mediaType));
  }

  /** Resolves once `jose` is loaded; rejects with what to do when this runtime cannot load it. */
  async ready(): Promise<void> {
    await this.loaded;
  }

  async verify(token: string): Promise<McpPrincipal> {
    const { jose, keys } = await this.loaded;
    let verified: JWTVerifyResult;
    try {
      verified = await this.checked(jose, keys, token);
    } catch (error) {
      throw tokenError(jose.errors, error);
    }
    const typ = verified.protectedHeader.typ;
    if (this.types && !(typeof typ === 'string' && this.types.has(mediaType(typ)))) {
      throw new InvalidTokenError(`The token is not an access token (typ ${JSON.stringify(typ ?? null)})`);
    }
    return new McpPrincipal(verified.payload);
  }

  private async checked(jose: Jose, keys: JWTVerifyGetKey | Uint8Array, token: string): Promise<JWTVerifyResult> {
    const verify = () =>
      jose.jwtVerify(token, keys as JWTVerifyGetKey, {
        issuer: this.options.issuer,
        audience: this.audience,
        algorithms: this.algorithms,
        clockTolerance: this.options.clockToleranceSec ?? 5,
        requiredClaims: ['exp'],
      });
    try {
      return await verify();
    } catch (error) {
      // jose fetches the keys again for an unknown kid only: an authorization server that replaced a key under
      // the same kid would have every new token refused until the cache ages out. A bad signature checks once
      // more against fresh keys, at most once per jose's cooldown (30 s), so forged tokens cannot flood the server.
      const remote = keys as Partial<RemoteKeys>;
      if (!(error instanceof jose.errors.JWSSignatureVerificationFailed) || !remote.reload || remote.coolingDown)
        throw error;
      await remote.reload();
      return verify();
    }
  }
}

type RemoteKeys = ReturnType<Jose['createRemoteJWKSet']>;

/** With keys, HMAC is refused: a public key taken for an HMAC secret would let anyone sign (algorithm confusion). */
function keyAlgorithms(algorithms: string[] | undefined): string[] {
  const hmac = algorithms?.filter((algorithm) => algorithm in HMAC_KEY_BYTES) ?? [];
  if (hmac.length > 0) throw new McpConfigurationError(JWT_HMAC_WITHOUT_SECRET(hmac));
  return algorithms ?? ASYMMETRIC_ALGORITHMS;
}

function hmacAlgorithms({ algorithms = ['HS256'] }: JwtVerifierOptions): string[] {
  const other = algorithms.filter((algorithm) => !(algorithm in HMAC_KEY_BYTES));
  if (algorithms.length === 0 || other.length > 0) throw new McpConfigurationError(JWT_SECRET_ALGORITHMS(algorithms));
  return algorithms;
}

function secretBytes(secret: string | Uint8Array, algorithms: string[]): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  const needed = Math.max(...algorithms.map((algorithm) => HMAC_KEY_BYTES[algorithm]));
  if (bytes.byteLength < needed)
    throw new McpConfigurationError(JWT_SECRET_SHORT(bytes.byteLength, algorithms, needed));
  return bytes;
}

/** `typ` compared as RFC 7515 §4.1.9 says: case-insensitively, with `application/` optional. */
function mediaType(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

function tokenError(errors: Jose['errors'], error: unknown): Error {
  // A JWKS endpoint that answers an error status or something that is not JSON raises jose's generic error (its
  // subclasses are all about the token): the keys are unavailable, which is a 503, not a bad token.
  const generic = error instanceof errors.JOSEError && error.code === errors.JOSEError.code;
  if (
    generic ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError)
  ) {
    return new TokenVerificationUnavailableError('The authorization server keys could not be fetched', {
      cause: error,
    });
  }
  const cause = { cause: error };
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('The access token expired', cause);
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return new InvalidTokenError('The access token was not issued for this resource', cause);
    return new InvalidTokenError(`The access token's ${error.claim} claim is not accepted`, cause);
  }
  return new InvalidTokenError('The access token is invalid', cause);
}
