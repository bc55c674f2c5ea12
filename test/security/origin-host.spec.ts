import 'reflect-metadata';
import { ConsoleLogger, type INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { MCPServer, McpModule, type McpModuleOptions } from '../../src/index.js';
import { createApp, HTTP_ADAPTERS, type HttpAdapterName } from '../support/create-app.js';
import { createMcpTestClient, mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { expectRefused, rawExchange, startFixture, type Fixture } from './fixture.js';
import { isLoopbackHost, publicBindWarning } from '../../src/http/policy/bind-address.js';

// security.md §2.5: Origin and Host (rows O1-O10; O11-O15 concern authorization, which this module leaves to
// the application's guards, see docs/security.md).
describe('security §2.5 Origin and Host (O rows)', () => {
  let fx: Fixture;
  const echo = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } });

  beforeAll(async () => {
    fx = await startFixture({}, true);
  });
  afterAll(() => fx.app.close());

  it.each([
    ['O1 a foreign origin', { origin: 'http://evil.example.com' }],
    ['O2 Origin: null', { origin: 'null' }],
    ['O3 an unparseable origin', { origin: '::::' }],
    ['O2 a file: origin', { origin: 'file://' }],
    ['O6 a foreign Host (DNS rebinding)', { host: 'evil.example.com' }],
    ['O6 a foreign Host and Origin together', { host: 'evil.example.com', origin: 'http://evil.example.com' }],
    ['O7 a Host with a loopback prefix', { host: 'localhost.evil.com' }],
    ['O7 a Host embedding a loopback address', { host: '127.0.0.1.nip.io' }],
    ['O7 an empty Host', { host: '' }],
    ['O7 a Host with a non-numeric port', { host: 'localhost:80x' }],
  ])('%s is 403 and never dispatched', async (_row, headers) => {
    await expectRefused(fx, () => fx.mcp.post(echo, headers), {
      status: 403,
      code: -32600,
      id: null,
    });
  });

  it.each([
    ['O4 a loopback origin on another port', { origin: 'http://localhost:5173' }],
    ['O5 no Origin at all', {}],
    ['O6 a loopback Host', { host: 'localhost' }],
    ['O8 an IPv6 loopback Host with a port', { host: '[::1]:1' }],
  ])('%s is served', async (_row, headers) => {
    expect((await fx.mcp.post(echo, headers)).status).toBe(200);
  });

  it('O9: an HTTP/1.0 request without Host is 403; HTTP/1.1 without Host gets 400 from Node', async () => {
    const text = JSON.stringify(echo);
    const headers = Object.entries(mcpHeaders(echo)).map(([k, v]) => `${k}: ${v}`);
    const http10 = [`POST /mcp HTTP/1.0`, ...headers, `Content-Length: ${text.length}`, '', text].join('\r\n');
    await expectRefused(fx, () => rawExchange(fx.port, http10), { status: 403, code: -32600, id: null });
    const http11 = [
      `POST /mcp HTTP/1.1`,
      'Connection: close',
      ...headers,
      `Content-Length: ${text.length}`,
      '',
      text,
    ].join('\r\n');
    expect((await rawExchange(fx.port, http11)).status).toBe(400);
  });

  it('allowedHosts and allowedOrigins add to the loopback defaults', async () => {
    const app = await createApp([
      McpModule.forRoot({
        name: 'public',
        version: '1',
        http: { allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] },
      }),
    ]);
    try {
      app.get(MCPServer).registerTool('echo', 'e', { type: 'object' }, () => 'ok');
      expect(
        (await createMcpTestClient(app).post(echo, { host: 'mcp.example.com', origin: 'https://app.example.com' }))
          .status,
      ).toBe(200);
      expect(
        (await createMcpTestClient(app).post(echo, { host: 'mcp.example.com:8443', origin: 'https://mcp.example.com' }))
          .status,
      ).toBe(200);
      expect(
        (await createMcpTestClient(app).post(echo, { host: 'localhost', origin: 'http://localhost:6274' })).status,
      ).toBe(200);
      expect((await createMcpTestClient(app).post(echo, { host: '127.0.0.1:3000' })).status).toBe(200);
      expect(
        (await createMcpTestClient(app).post(echo, { host: 'mcp.example.com', origin: 'https://evil.example.com' }))
          .status,
      ).toBe(403);
      expect((await createMcpTestClient(app).post(echo, { host: 'evil.example.com' })).status).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('a refused Host or Origin names the option to set', async () => {
    const host = await fx.mcp.post(echo, { host: 'evil.example.com' });
    expect(host.status).toBe(403);
    expect(host.body.error.message).toBe(
      'Forbidden: Host "evil.example.com" is not allowed; add it to the allowedHosts option if this server should answer it',
    );
    const origin = await fx.mcp.post(echo, { origin: 'http://evil.example.com' });
    expect(origin.status).toBe(403);
    expect(origin.body.error.message).toBe(
      'Forbidden: Origin "http://evil.example.com" is not allowed; add it to the allowedOrigins option if this server should answer it',
    );
  });
});

/** Keeps the warnings an app logs, so a test can count the start-up warning. */
class RecordingLogger extends ConsoleLogger {
  readonly warnings: string[] = [];
  override warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  override log(): void {}
}

async function listeningApp(adapter: HttpAdapterName, options: Partial<McpModuleOptions>, host: string | undefined) {
  const moduleRef = await Test.createTestingModule({
    imports: [McpModule.forRoot({ name: 'bind', version: '1', ...options })],
  }).compile();
  const logger = new RecordingLogger();
  const app: INestApplication =
    adapter === 'express'
      ? moduleRef.createNestApplication({ logger })
      : moduleRef.createNestApplication(new FastifyAdapter(), { logger });
  app.get(MCPServer).registerTool('echo', 'e', { type: 'object' }, () => 'ok');
  await (host === undefined ? app.listen(0) : app.listen(0, host));
  return { app, logger };
}

describe('O10: listening beyond loopback without allowedHosts starts, warns once, and still refuses foreign Hosts', () => {
  const echo = mcpMessage('tools/call', { name: 'echo', arguments: {} });
  const cases = HTTP_ADAPTERS.flatMap((adapter) => [undefined, '0.0.0.0'].map((host) => [adapter, host] as const));

  it.each(cases)('%s: app.listen(0, %s) serves a loopback client and refuses a foreign Host', async (adapter, host) => {
    const { app, logger } = await listeningApp(adapter, {}, host);
    try {
      expect(app.getHttpServer().listening).toBe(true);
      const warnings = logger.warnings.filter((w) => w.includes('allowedHosts'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(host === undefined ? 'every interface' : '"0.0.0.0"');
      expect(warnings[0]).toContain('http: { allowedHosts: ["mcp.example.com"] }');
      expect((await createMcpTestClient(app).post(echo, { host: 'localhost' })).status).toBe(200);
      const foreign = await createMcpTestClient(app).post(echo, { host: 'evil.example.com' });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.message).toMatch(/allowedHosts/);
    } finally {
      await app.close();
    }
  });

  it('loopback binds and an explicit allowlist start without the warning', async () => {
    for (const [options, host] of [
      [{}, '127.0.0.1'],
      [{ http: { allowedHosts: ['mcp.example.com'] } }, '0.0.0.0'],
      [{ http: { hostOriginCheck: false } }, '0.0.0.0'],
    ] as const) {
      const { app, logger } = await listeningApp('express', options, host);
      expect(app.getHttpServer().listening).toBe(true);
      expect(logger.warnings).toEqual([]);
      await app.close();
    }
  });

  it('classifies hosts: loopback names and addresses only', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'LOCALHOST'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of [undefined, '', '0.0.0.0', '::', '10.0.0.1', 'localhost.evil.com', '127.0.0.1.nip.io'])
      expect(isLoopbackHost(host)).toBe(false);
    expect(publicBindWarning('0.0.0.0', { hostOriginCheck: false })).toBeNull();
    expect(publicBindWarning('0.0.0.0', { allowedHosts: ['a.example'] })).toBeNull();
    expect(publicBindWarning('127.0.0.1', {})).toBeNull();
    expect(publicBindWarning('192.168.1.10', {})).toMatch(
      /listens on "192\.168\.1\.10", but http\.allowedHosts is not set/,
    );
  });
});
