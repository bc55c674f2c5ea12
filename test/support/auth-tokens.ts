import type { INestApplication } from '@nestjs/common';
import { exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpModule } from '../../src/index.js';
import type { McpAuthOptions } from '../../src/auth/tokens/auth-options.js';
import { createApp } from './create-app.js';

export const RESOURCE = 'https://mcp.example.com/mcp';
export const ISSUER = 'https://auth.example.com';
export const RESOURCE_METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

/** A signing key of a test authorization server, and the JWKS that publishes it. */
export interface TestIssuer {
  jwks: JSONWebKeySet;
  /** Signs an access token; `claims` override the defaults (iss, aud = RESOURCE, sub, exp in 5 minutes). */
  token(
    claims?: JWTPayload & { exp?: number | undefined },
    header?: { alg?: string; kid?: string; typ?: string | null },
  ): Promise<string>;
}

export async function createTestIssuer(kid = 'test-key'): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return {
    jwks: { keys: [jwk] },
    async token(claims = {}, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = {
        iss: ISSUER,
        aud: RESOURCE,
        sub: 'user-1',
        client_id: 'client-1',
        iat: now,
        exp: now + 300,
        ...claims,
      };
      for (const key of Object.keys(payload)) if (payload[key] === undefined) delete payload[key];
      const typ = header.typ === undefined ? 'at+jwt' : (header.typ ?? undefined);
      return new SignJWT(payload)
        .setProtectedHeader({ alg: header.alg ?? 'ES256', kid: header.kid ?? kid, ...(typ ? { typ } : {}) })
        .sign(privateKey);
    },
  };
}

/** A throwaway HTTP server on 127.0.0.1 (a JWKS or introspection endpoint); stop it with `close()`. */
export async function startLocalServer(
  handler: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Splits a WWW-Authenticate Bearer challenge into its parameters. */
export function challengeParams(header: string | undefined): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  const params: Record<string, string> = {};
  for (const match of (header ?? '').slice('Bearer '.length).matchAll(/(\w+)="([^"]*)"/g)) params[match[1]] = match[2];
  return params;
}

/** A Nest app with one MCP server "files" at /mcp, protected as RESOURCE for ISSUER with the given verifier. */
export function createAuthApp(auth: Partial<McpAuthOptions>): Promise<INestApplication> {
  return createApp([
    McpModule.forRoot({
      name: 'files',
      version: '1.0.0',
      auth: { resource: RESOURCE, authorizationServers: [ISSUER], ...auth },
    }),
  ]);
}
