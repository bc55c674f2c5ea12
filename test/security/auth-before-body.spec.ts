import 'reflect-metadata';
import {
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { ErrorCode, MCPServer, McpModule } from '../../src/index.js';
import { createMcpTestClient, mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { createTestIssuer, ISSUER, RESOURCE, type TestIssuer } from '../support/auth-tokens.js';
import { createApp, HTTP_ADAPTERS, type HttpAdapterName } from '../support/create-app.js';

const LIMIT = 256 * 1024;

async function urlOf(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
}

/**
 * Opens a POST, writes `first` and waits for the answer without ever ending the body (or writing more): an
 * answer can only come from a server that decided without the body.
 */
function answerBeforeTheBodyEnds(
  url: string,
  headers: Record<string, string>,
  first: Buffer,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write(first);
  });
}

/**
 * Security round 2, finding 11: where the module authenticates from the headers (a bearer token), an
 * unauthenticated client costs no body read or inflation, on both adapters; on Fastify the app's own
 * `bodyLimit` caps the module's when it is smaller.
 */
describe.each(HTTP_ADAPTERS)('security round 2: authentication before the body (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await createTestIssuer();
    app = await createApp(
      [
        McpModule.forRoot({
          name: 'guarded',
          version: '1.0.0',
          http: { maxBodyBytes: LIMIT },
          auth: { resource: RESOURCE, authorizationServers: [ISSUER], jwt: { issuer: ISSUER, jwks: issuer.jwks } },
        }),
      ],
      [],
      adapter,
    );
    app.get(MCPServer).addTool({
      name: 'whoami',
      description: 'Who is calling, as a guard sees it on request.user',
      inputSchema: { type: 'object' },
      handler: (_args, _answers, ctx) => (ctx.httpRequest as { user?: { sub?: string } }).user?.sub ?? 'nobody',
    });
    url = await urlOf(app);
  });
  afterAll(() => app.close());

  it('answers 401 to a gzip body that never ends, before reading it', async () => {
    const message = mcpMessage('tools/call', { name: 'whoami', arguments: { pad: 'x'.repeat(64 * 1024) } });
    const gzipped = gzipSync(JSON.stringify(message));
    const answer = await answerBeforeTheBodyEnds(
      url,
      { ...mcpHeaders(message), 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' },
      gzipped.subarray(0, 1024),
    );
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.Unauthorized } });
  });

  it('answers 401, not 413, to an unauthenticated body declared past the limit', async () => {
    const message = mcpMessage('tools/call', { name: 'whoami', arguments: {} });
    const answer = await answerBeforeTheBodyEnds(
      url,
      { ...mcpHeaders(message), 'content-length': String(100 * 1024 * 1024) },
      Buffer.from(JSON.stringify(message).slice(0, 10)),
    );
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe(ErrorCode.Unauthorized);
  });

  it('still serves a token holder, with the caller on request.user, and still sends them the 413', async () => {
    const token = await issuer.token({ sub: 'alice' });
    const mcp = createMcpTestClient(app, { headers: { authorization: `Bearer ${token}` } });
    const res = await mcp.post(mcpMessage('tools/call', { name: 'whoami', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('alice');
    const big = await mcp.post(mcpMessage('tools/call', { name: 'whoami', arguments: { pad: 'x'.repeat(LIMIT) } }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe(ErrorCode.InvalidRequest);
  });
});

describe("security round 2: the Fastify app's bodyLimit", () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'small', version: '1.0.0' })],
    }).compile();
    app = moduleRef.createNestApplication(new FastifyAdapter({ bodyLimit: 64 * 1024 }), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  it("refuses a body between the app's bodyLimit and the module's limit with the MCP 413 error", async () => {
    const mcp = createMcpTestClient(app);
    const between = await mcp.post(mcpMessage('server/discover', { padding: 'x'.repeat(100 * 1024) }));
    expect(between.status).toBe(413);
    expect(between.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: 'Request body exceeds the limit of 65536 bytes' },
    });
    const within = await mcp.post(mcpMessage('server/discover', { padding: 'x'.repeat(32 * 1024) }));
    expect(within.status).toBe(200);
  });
});

/** Records what the app's guard saw, and lets through only a request with the `x-user` header. */
@Injectable()
class HeaderUserGuard implements CanActivate {
  static seen: Array<Record<string, string | undefined>> = [];

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    const { 'content-type': type, 'content-length': length, 'content-encoding': encoding } = req.headers;
    HeaderUserGuard.seen.push({ type, length, encoding });
    const user = req.headers['x-user'];
    if (user === undefined) throw new UnauthorizedException();
    // An empty name is a request the guard lets through as nobody (a public route would).
    if (user !== '') req.user = { sub: user };
    return true;
  }
}

/** An app whose own guard (`HeaderUserGuard`) authenticates, with `auth.fromRequest` reading its user or no `auth`. */
async function appGuardedApp(adapter: HttpAdapterName, auth: 'none' | 'fromRequest'): Promise<INestApplication> {
  const app = await createApp(
    [
      McpModule.forRoot({
        name: 'app-guarded',
        version: '1.0.0',
        http: { maxBodyBytes: LIMIT },
        ...(auth === 'fromRequest' && {
          auth: { resource: RESOURCE, fromRequest: (req: { user?: { sub: string } }) => req.user },
        }),
      }),
    ],
    [{ provide: APP_GUARD, useClass: HeaderUserGuard }],
    adapter,
  );
  app.get(MCPServer).addTool({
    name: 'whoami',
    description: 'Who is calling, as the guard put it on request.user',
    inputSchema: { type: 'object' },
    handler: (_args, _answers, ctx) => (ctx.httpRequest as { user?: { sub?: string } }).user?.sub ?? 'nobody',
  });
  return app;
}

/**
 * With `auth.fromRequest` (the principal is what the app's guard set), the guard runs before the body is read:
 * a caller it refuses, or one it lets through without a principal, costs no body read or inflation.
 */
describe.each(HTTP_ADAPTERS)('security round 2: auth.fromRequest decides before the body (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await appGuardedApp(adapter, 'fromRequest');
    url = await urlOf(app);
  });
  afterAll(() => app.close());
  beforeEach(() => (HeaderUserGuard.seen = []));

  it('answers 401 to a gzip body that never ends, before reading it, when the guard refuses', async () => {
    const message = mcpMessage('tools/call', { name: 'whoami', arguments: { pad: 'x'.repeat(64 * 1024) } });
    const answer = await answerBeforeTheBodyEnds(
      url,
      { ...mcpHeaders(message), 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' },
      gzipSync(JSON.stringify(message)).subarray(0, 1024),
    );
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.Unauthorized } });
  });

  it('answers 401 before the body when the guard lets a caller through without a principal', async () => {
    const message = mcpMessage('tools/call', { name: 'whoami', arguments: {} });
    const answer = await answerBeforeTheBodyEnds(
      url,
      { ...mcpHeaders(message), 'x-user': '', 'content-length': String(LIMIT - 1) },
      Buffer.from(JSON.stringify(message).slice(0, 10)),
    );
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.Unauthorized } });
    expect(HeaderUserGuard.seen).toHaveLength(1);
  });
});

/** With or without `auth`, the app's guard sees the body's headers as they arrived and the body stays the MCP route's. */
describe.each(
  HTTP_ADAPTERS.flatMap((adapter) => [
    { adapter, auth: 'none' as const },
    { adapter, auth: 'fromRequest' as const },
  ]),
)("security round 2: the app's guard and the body ($adapter, auth: $auth)", ({ adapter, auth }) => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await appGuardedApp(adapter, auth);
  });
  afterAll(() => app.close());
  beforeEach(() => (HeaderUserGuard.seen = []));

  it('shows the guard the body headers as they arrived, serves the caller it let through, and still sends the 413', async () => {
    const mcp = createMcpTestClient(app, { headers: { 'x-user': 'alice' } });
    const message = mcpMessage('tools/call', { name: 'whoami', arguments: {} });
    const res = await mcp.post(message);
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('alice');
    expect(HeaderUserGuard.seen).toEqual([
      { type: 'application/json', length: String(Buffer.byteLength(JSON.stringify(message))), encoding: undefined },
    ]);
    const big = await mcp.post(mcpMessage('tools/call', { name: 'whoami', arguments: { pad: 'x'.repeat(LIMIT) } }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe(ErrorCode.InvalidRequest);
  });
});
