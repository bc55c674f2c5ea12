import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { CONFORMANCE_PROVIDERS } from '../../examples/conformance/app.module.js';
import { fixtureMcpModules } from '../../examples/conformance/mcp-setup.js';
import { challengeParams } from '../support/auth-tokens.js';
import { createApp, HTTP_ADAPTERS } from '../support/create-app.js';
import { eraHeaders, legacyInitialize } from '../support/conformance-fixture.js';
import { startMockAuthorizationServer, type MockAuthorizationServer } from '../support/mock-authorization-server.js';
import { holdPort, type HeldPort } from '../support/held-port.js';
import { closeListening } from '../support/sse-client.js';

/**
 * The referee's unreleased `auth-token-audience-validation`, against the fixture's auth launch
 * (`MCP_CONFORMANCE_AUTH=1`): one test per check, named after it, for both probes the scenario sends (2026-07-28
 * `server/discover`, 2025-era `initialize`). The fixture starts before the authorization server does, as under the
 * referee, whose mock server runs only during the scenario: its keys are fetched when the first token arrives.
 */
const PROBES = {
  '2026-07-28': () => {
    const body = mcpMessage('server/discover', {}, { clientInfo: { name: 'audience-probe', version: '1.0.0' } });
    return { body, headers: mcpHeaders(body) };
  },
  '2025-11-25': () => ({ body: legacyInitialize('audience-probe'), headers: eraHeaders('2025-11-25') }),
};

describe.each(HTTP_ADAPTERS)('auth-token-audience-validation against the auth launch on %s', (adapter) => {
  let app: INestApplication;
  let url: string;
  let as: MockAuthorizationServer;

  beforeAll(async () => {
    const [appPort, asPort] = [await holdPort(), await holdPort()];
    const env = {
      MCP_CONFORMANCE_AUTH: '1',
      MCP_CONFORMANCE_AUTH_SERVER_PORT: String(asPort.port),
      PORT: String(appPort.port),
    };
    app = await createApp(fixtureMcpModules(env), CONFORMANCE_PROVIDERS, adapter);
    await appPort.release();
    await app.listen(appPort.port, '127.0.0.1');
    url = `http://127.0.0.1:${appPort.port}/mcp`;
    as = await startMockAuthorizationServer(asPort);
  });
  afterAll(async () => {
    await as.close();
    await closeListening(app);
  });

  const probe = async (era: keyof typeof PROBES, token?: string) => {
    const { body, headers } = PROBES[era]();
    const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const res = await fetch(url, { method: 'POST', headers: { ...headers, ...auth }, body: JSON.stringify(body) });
    return { status: res.status, challenge: res.headers.get('www-authenticate') ?? undefined, text: await res.text() };
  };
  const refusedAsInvalid = (res: { status: number; challenge?: string }) => {
    expect(res.status).toBe(401);
    expect(challengeParams(res.challenge)).toMatchObject({
      error: 'invalid_token',
      resource_metadata: `${url.replace('/mcp', '')}/.well-known/oauth-protected-resource/mcp`,
    });
  };

  describe.each(Object.keys(PROBES) as Array<keyof typeof PROBES>)('probing with the %s request', (era) => {
    it('auth-unauthenticated-request-rejected', async () => {
      const res = await probe(era);
      expect(res.status).toBe(401);
      expect(challengeParams(res.challenge)).toEqual({
        resource_metadata: `${url.replace('/mcp', '')}/.well-known/oauth-protected-resource/mcp`,
      });
    });

    it('auth-valid-audience-token-accepted', async () => {
      const res = await probe(era, await as.sign({ audience: url }));
      expect(res.status).toBe(200);
      expect(res.text).toContain('"result"');
    });

    it('auth-wrong-audience-token-rejected', async () => {
      refusedAsInvalid(await probe(era, await as.sign({ audience: 'https://another-resource.example.com/mcp' })));
    });

    it('auth-missing-audience-token-rejected', async () => {
      refusedAsInvalid(await probe(era, await as.sign()));
    });

    it('auth-expired-token-rejected', async () => {
      refusedAsInvalid(await probe(era, await as.sign({ audience: url, expiresInSeconds: -600 })));
    });

    it('auth-untrusted-token-rejected', async () => {
      refusedAsInvalid(await probe(era, await as.signUnpublished({ audience: url })));
    });

    it('refuses a token from an issuer it does not trust with invalid_token', async () => {
      refusedAsInvalid(await probe(era, await as.sign({ audience: url, issuer: 'http://127.0.0.1:1' })));
    });
  });
});

describe('the auth launch and the keys of its authorization server', () => {
  let app: INestApplication;
  let url: string;
  let as: MockAuthorizationServer;
  let asPort: HeldPort;
  const realNow = Date.now;

  beforeEach(async () => {
    const appPort = await holdPort();
    asPort = await holdPort();
    const env = {
      MCP_CONFORMANCE_AUTH: '1',
      MCP_CONFORMANCE_AUTH_SERVER_PORT: String(asPort.port),
      PORT: String(appPort.port),
    };
    app = await createApp(fixtureMcpModules(env), CONFORMANCE_PROVIDERS);
    await appPort.release();
    await app.listen(appPort.port, '127.0.0.1');
    url = `http://127.0.0.1:${appPort.port}/mcp`;
  });
  afterEach(async () => {
    Date.now = realNow;
    await asPort.release();
    await closeListening(app);
  });

  const discover = async (token: string) => {
    const body = mcpMessage('server/discover');
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...mcpHeaders(body), authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    await res.text();
    return res.status;
  };
  const later = (ms: number) => {
    const at = realNow() + ms;
    Date.now = () => at;
  };

  it('starts while the authorization server is down and fetches its keys when the first token arrives', async () => {
    as = await startMockAuthorizationServer(asPort);
    expect(as.jwksFetches).toBe(0);
    expect(await discover(await as.sign({ audience: url }))).toBe(200);
    expect(as.jwksFetches).toBe(1);
  });

  it('fetches the keys again for an unknown kid once 30 s have passed since the last fetch', async () => {
    as = await startMockAuthorizationServer(asPort);
    expect(await discover(await as.sign({ audience: url }))).toBe(200);
    await as.rotate('rotated-key');
    // Within the cooldown an unknown kid is refused without a fetch, so made-up kids cannot flood the server.
    expect(await discover(await as.sign({ audience: url }))).toBe(401);
    expect(as.jwksFetches).toBe(1);
    later(30_001);
    expect(await discover(await as.sign({ audience: url }))).toBe(200);
    expect(as.jwksFetches).toBe(2);
  });

  it('checks a bad signature once more against fresh keys after the cooldown (a key replaced under its kid)', async () => {
    as = await startMockAuthorizationServer(asPort);
    expect(await discover(await as.sign({ audience: url }))).toBe(200);
    // Fresh keys under the same kid, as a restarted authorization server has (the referee's runs each start one).
    await as.rotate();
    const token = await as.sign({ audience: url });
    expect(await discover(token)).toBe(401);
    expect(as.jwksFetches).toBe(1);
    later(30_001);
    expect(await discover(token)).toBe(200);
    expect(as.jwksFetches).toBe(2);
  });
});
