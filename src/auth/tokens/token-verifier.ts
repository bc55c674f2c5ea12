/** Verifies an access token and returns the principal it stands for; throws when it cannot. */
export interface TokenVerifier {
  verify(token: string): Promise<unknown>;
  /** Resolves when the verifier can work (its libraries loaded); awaited once at start-up. */
  ready?(): Promise<void>;
}

/** The token is not acceptable here (bad signature, expired, wrong audience or issuer, inactive): 401. */
export class InvalidTokenError extends Error {
  constructor(message = 'The access token is invalid', options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidTokenError';
  }
}

/**
 * The token could not be checked because something it depends on is down (the JWKS or introspection endpoint).
 * This is not the client's fault, so it is a 503 and not a 401 that would make the client throw its token away.
 */
export class TokenVerificationUnavailableError extends Error {
  /** Seconds after which a retry may succeed (sent as `Retry-After`), when the verifier knows. */
  readonly retryAfterSec?: number;

  constructor(message: string, options?: { cause?: unknown; retryAfterSec?: number }) {
    super(message, options);
    this.name = 'TokenVerificationUnavailableError';
    if (options?.retryAfterSec !== undefined) this.retryAfterSec = options.retryAfterSec;
  }
}
