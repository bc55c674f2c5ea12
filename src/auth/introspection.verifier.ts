import type { IntrospectionVerifierOptions } from './auth-options.js';
import { McpPrincipal } from './principal.js';
import { InvalidTokenError, TokenVerificationUnavailableError, type TokenVerifier } from './token-verifier.js';

/**
 * Verifies opaque tokens by asking the authorization server (RFC 7662). An active token must also name this
 * resource in `aud` and, when configured, the expected `iss`; an expired `exp` is refused even if the server
 * still says active.
 */
export class IntrospectionVerifier implements TokenVerifier {
  private readonly audiences: ReadonlySet<string>;
  private readonly issuers: ReadonlySet<string> | undefined;
  private readonly headers: Record<string, string>;

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
  }

  async verify(token: string): Promise<McpPrincipal> {
    const response = await this.introspect(token);
    if (response.active !== true) throw new InvalidTokenError('The access token is not active');
    if (typeof response.exp === 'number' && response.exp * 1000 <= Date.now()) throw new InvalidTokenError('The access token expired');
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
