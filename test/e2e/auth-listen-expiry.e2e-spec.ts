import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpPrincipal } from '../../src/index.js';
import { createAuthApp, createTestIssuer, ISSUER, RESOURCE, type TestIssuer } from '../support/auth-tokens.js';
import { mcpMessage } from '../../src/testing/index.js';
import { closeListening, LiveResponse, listenOnLoopback } from '../support/sse-client.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** An `exp` one to two seconds from now: past the JWT verifier's check, soon enough to wait for. */
const soon = () => Math.floor(Date.now() / 1000) + 2;
const closingResult = (id: string) => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'complete', _meta: expect.objectContaining({ [SUBSCRIPTION_ID]: id }) },
});

/** Resolves once at most `open` listen streams remain: the kernel let go of the others. */
async function untilOpen(server: MCPServer, open: number): Promise<void> {
  while (server.load.subscriptions > open) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function listen(url: string, id: string, token: string): Promise<LiveResponse> {
  const live = await LiveResponse.post(
    url,
    mcpMessage('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id }),
    bearer(token),
  );
  expect(live.status).toBe(200);
  expect(await live.next()).toMatchObject({
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [SUBSCRIPTION_ID]: id } },
  });
  return live;
}

describe('subscriptions/listen ends when the JWT access token expires', () => {
  let app: INestApplication;
  let server: MCPServer;
  let url: string;
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await createTestIssuer();
    app = await createAuthApp({ jwt: { issuer: ISSUER, jwks: issuer.jwks } });
    server = app.get(MCPServer);
    server.addTool({ name: 't', description: 'A tool', inputSchema: { type: 'object' }, handler: () => 'x' });
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  it('sends the closing result and ends the stream at the token expiry', async () => {
    const live = await listen(url, 'expiring', await issuer.token({ exp: soon() }));
    expect(await live.rest()).toEqual([closingResult('expiring')]);
    await untilOpen(server, 0);
  });

  it('lets go of the stream, and its expiry timer, when the client closes it before the token expires', async () => {
    const live = await listen(url, 'early', await issuer.token());
    expect(server.load.subscriptions).toBe(1);
    live.close();
    await untilOpen(server, 0);
    expect(server.load.subscriptions).toBe(0);
  });
});

describe('subscriptions/listen with principals from a verify function', () => {
  let app: INestApplication;
  let server: MCPServer;
  let url: string;

  beforeAll(async () => {
    app = await createAuthApp({
      // "forever" is a credential without exp; "payload" is a token payload as a Passport JWT strategy gives.
      verify: (token: string) =>
        token === 'forever'
          ? new McpPrincipal({ iss: ISSUER, aud: RESOURCE, sub: 'user-1' })
          : token === 'payload'
            ? { iss: ISSUER, aud: RESOURCE, sub: 'user-2', exp: soon() }
            : null,
    });
    server = app.get(MCPServer);
    server.addTool({ name: 't', description: 'A tool', inputSchema: { type: 'object' }, handler: () => 'x' });
    url = await listenOnLoopback(app);
  });
  afterAll(() => closeListening(app));

  it('ends a stream at the exp of a plain payload, and keeps one whose credential has no exp open', async () => {
    const forever = await listen(url, 'forever', 'forever');
    const payload = await listen(url, 'payload', 'payload');
    expect(server.load.subscriptions).toBe(2);

    expect(await payload.rest()).toEqual([closingResult('payload')]);
    await untilOpen(server, 1);

    // Still open and still delivering, after the other credential expired.
    expect(server.load.subscriptions).toBe(1);
    server.addTool({
      name: 'later',
      description: 'Added after the expiry',
      inputSchema: { type: 'object' },
      handler: () => 'y',
    });
    expect(await forever.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 'forever' } },
    });

    forever.close();
    await untilOpen(server, 0);
  });
});
