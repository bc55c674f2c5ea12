import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { HeldPort } from './held-port.js';

export interface MockTokenOptions {
  /** `aud`; left out when undefined. */
  audience?: string;
  /** Seconds until `exp`; negative for a token that has expired. Default 300. */
  expiresInSeconds?: number;
  /** `iss`; default the server's own issuer. */
  issuer?: string;
  /** `kid` of the header; default the current key's. */
  kid?: string;
}

/**
 * An authorization server as the referee's audience scenario runs one: RFC 8414 metadata and a JWKS on
 * 127.0.0.1, RS256 `at+jwt` tokens, and a second key it never publishes. It counts the JWKS fetches, and can
 * replace its key (under a new kid, or under the same one, as a restarted server with fresh keys does).
 */
export interface MockAuthorizationServer {
  issuer: string;
  jwksFetches: number;
  sign(options?: MockTokenOptions): Promise<string>;
  /** Signed with a key the JWKS never lists, under the published kid. */
  signUnpublished(options?: MockTokenOptions): Promise<string>;
  rotate(kid?: string): Promise<void>;
  close(): Promise<void>;
}

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** Serves on `held`, the port the test reserved for it (its issuer URL was handed out before it started). */
export async function startMockAuthorizationServer(held: HeldPort): Promise<MockAuthorizationServer> {
  const issuer = `http://127.0.0.1:${held.port}`;
  let current = await signingKey('mock-as-key');
  const unpublished = await signingKey('unpublished');
  const sign = (key: PrivateKey, kid: string, options: MockTokenOptions) => {
    const now = Math.floor(Date.now() / 1000);
    const expiresIn = options.expiresInSeconds ?? 300;
    const jwt = new SignJWT({ client_id: 'mock-client' })
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? kid, typ: 'at+jwt' })
      .setIssuer(options.issuer ?? issuer)
      .setSubject('mock-user')
      .setJti(randomUUID())
      .setIssuedAt(expiresIn < 0 ? now + expiresIn - 3600 : now)
      .setExpirationTime(now + expiresIn);
    if (options.audience !== undefined) jwt.setAudience(options.audience);
    return jwt.sign(key);
  };
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
  };
  const as: MockAuthorizationServer = {
    issuer,
    jwksFetches: 0,
    sign: (options = {}) => sign(current.privateKey, current.kid, options),
    signUnpublished: (options = {}) => sign(unpublished.privateKey, current.kid, options),
    async rotate(kid = current.kid) {
      current = await signingKey(kid);
    },
    close: () => held.release(),
  };
  const server: Server = held.server;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url?.split('?')[0];
    const body =
      path === '/.well-known/oauth-authorization-server'
        ? metadata
        : path === '/.well-known/jwks.json'
          ? (as.jwksFetches++, { keys: [current.jwk] })
          : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not_found' }));
  });
  return as;
}
