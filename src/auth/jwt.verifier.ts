import type { JWTVerifyGetKey } from 'jose';
import type { JwtVerifierOptions } from './auth-options.js';
import { loadJose, type Jose } from './jose.js';
import { McpPrincipal } from './principal.js';
import { InvalidTokenError, TokenVerificationUnavailableError, type TokenVerifier } from './token-verifier.js';

const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/**
 * Verifies JWT access tokens with `jose`: signature against the JWKS, an allowed algorithm, `iss`, `aud` (this
 * resource, so tokens minted for another service are refused), and `exp`, which must be present.
 */
export class JwtVerifier implements TokenVerifier {
  private readonly loaded: Promise<{ jose: Jose; keys: JWTVerifyGetKey }>;

  constructor(
    private readonly options: JwtVerifierOptions,
    private readonly audience: string | string[],
  ) {
    if (!options.issuer || (Array.isArray(options.issuer) && options.issuer.length === 0)) throw new Error('auth.jwt.issuer is required');
    if ((options.jwksUri === undefined) === (options.jwks === undefined)) throw new Error('auth.jwt needs exactly one of jwksUri and jwks');
    this.loaded = loadJose().then((jose) => ({
      jose,
      keys: options.jwks
        ? jose.createLocalJWKSet(options.jwks)
        : jose.createRemoteJWKSet(new URL(options.jwksUri!), { timeoutDuration: options.jwksTimeoutMs ?? 5000 }),
    }));
    // Reported by ready() at start-up; this keeps the rejection from also surfacing as unhandled.
    this.loaded.catch(() => undefined);
  }

  /** Resolves once `jose` is loaded; rejects with what to do when this runtime cannot load it. */
  async ready(): Promise<void> {
    await this.loaded;
  }

  async verify(token: string): Promise<McpPrincipal> {
    const { jose, keys } = await this.loaded;
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: this.audience,
        algorithms: this.options.algorithms ?? ASYMMETRIC_ALGORITHMS,
        clockTolerance: this.options.clockToleranceSec ?? 5,
        requiredClaims: ['exp'],
      });
      return new McpPrincipal(payload);
    } catch (error) {
      throw tokenError(jose.errors, error);
    }
  }
}

function tokenError(errors: Jose['errors'], error: unknown): Error {
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError)) {
    return new TokenVerificationUnavailableError('The authorization server keys could not be fetched', { cause: error });
  }
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('The access token expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return new InvalidTokenError('The access token was not issued for this resource');
    return new InvalidTokenError(`The access token's ${error.claim} claim is not accepted`);
  }
  return new InvalidTokenError('The access token is invalid');
}
