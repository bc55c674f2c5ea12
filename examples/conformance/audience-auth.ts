import type { McpModuleOptions } from '../../src/index.js';

/** The port the referee's mock authorization server listens on unless `MCP_CONFORMANCE_AUTH_SERVER_PORT` says. */
export const MOCK_AUTH_SERVER_PORT = 9797;

/**
 * The auth launch (`MCP_CONFORMANCE_AUTH=1`), for the referee's `auth-token-audience-validation`: the endpoint is
 * a resource server trusting the mock authorization server the scenario starts on 127.0.0.1 (at
 * `MCP_CONFORMANCE_AUTH_SERVER_PORT`, default 9797; its RFC 8414 metadata names the keys below), and expecting
 * its own URL as the audience. The keys are fetched when the first token arrives, not at start-up, since the
 * mock server runs only while the scenario does. Nothing is scoped, so `server/discover` needs only a valid token.
 */
export function audienceAuth(env: NodeJS.ProcessEnv): McpModuleOptions['auth'] {
  if (env.MCP_CONFORMANCE_AUTH !== '1') return undefined;
  const port = Number(env.MCP_CONFORMANCE_AUTH_SERVER_PORT || MOCK_AUTH_SERVER_PORT);
  if (!Number.isInteger(port) || port <= 0 || port > 65535)
    throw new Error(`MCP_CONFORMANCE_AUTH_SERVER_PORT is not a port: ${env.MCP_CONFORMANCE_AUTH_SERVER_PORT}`);
  const issuer = `http://127.0.0.1:${port}`;
  return {
    resource: env.MCP_RESOURCE ?? `http://127.0.0.1:${env.PORT ?? 3000}/mcp`,
    authorizationServers: [issuer],
    jwt: { issuer, jwksUri: `${issuer}/.well-known/jwks.json` },
  };
}
