import 'reflect-metadata';
import type { ExecutionContext, INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { MCPServer, McpModule } from '../../src/index.js';
import { createApp } from '../support/create-app.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';

const INSPECTOR = 'http://localhost:6274';
const FOREIGN = 'https://evil.example';
const MCP_REQUEST_HEADERS = 'content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, authorization';

/** A browser's CORS preflight for a POST to the MCP route. */
function preflight(app: INestApplication, origin: string, headers = MCP_REQUEST_HEADERS, path = '/mcp') {
  return request(app.getHttpServer())
    .options(path)
    .set('origin', origin)
    .set('access-control-request-method', 'POST')
    .set('access-control-request-headers', headers);
}

/** A cross-origin POST of a conforming body. */
function crossOriginPost(app: INestApplication, body: Record<string, unknown>, origin = INSPECTOR, path = '/mcp') {
  return request(app.getHttpServer()).post(path).set(mcpHeaders(body)).set('origin', origin).send(JSON.stringify(body));
}

describe('CORS for browser clients (http.cors: true)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createApp([
      McpModule.forRoot({
        name: 'cors',
        version: '1.0.0',
        http: { cors: true, allowedOrigins: ['https://agent.example'] },
      }),
    ]);
    app
      .get(MCPServer)
      .registerTool(
        'echo',
        'Echoes',
        { type: 'object', properties: { text: { type: 'string' } } },
        (a: { text?: string }) => a.text ?? '',
      );
  });
  afterAll(() => app.close());

  it('answers the preflight of an allowed origin with the MCP headers allowed', async () => {
    const res = await preflight(app, INSPECTOR).expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(INSPECTOR);
    expect(res.headers['access-control-allow-methods']).toBe('POST');
    const allowed = res.headers['access-control-allow-headers'].split(', ');
    expect(allowed).toEqual(
      expect.arrayContaining([
        'content-type',
        'mcp-protocol-version',
        'mcp-method',
        'mcp-name',
        'mcp-param-region',
        'authorization',
      ]),
    );
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers.vary).toContain('Origin');
  });

  it('allows an origin from allowedOrigins too (one allowlist for CORS and the Origin check)', async () => {
    const res = await preflight(app, 'https://agent.example').expect(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://agent.example');
  });

  it('does not allow a foreign origin, and does not echo headers it did not define', async () => {
    const res = await preflight(app, FOREIGN).expect(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-headers']).toBeUndefined();
    const odd = await preflight(app, INSPECTOR, 'x-custom, mcp-name').expect(204);
    expect(odd.headers['access-control-allow-headers']).not.toContain('x-custom');
  });

  it('marks a cross-origin POST from an allowed origin readable, exposing the MCP response headers', async () => {
    const body = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const res = await crossOriginPost(app, body).expect(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(res.headers['access-control-allow-origin']).toBe(INSPECTOR);
    expect(res.headers['access-control-expose-headers']).toBe(
      'WWW-Authenticate, MCP-Protocol-Version, Retry-After, RateLimit-Limit, RateLimit-Remaining',
    );
  });

  it('makes a refusal readable too, so a browser client sees the JSON-RPC error', async () => {
    const body = mcpMessage('tools/list');
    const res = await request(app.getHttpServer())
      .post('/mcp')
      .set({ ...mcpHeaders(body), 'mcp-method': 'tools/call' })
      .set('origin', INSPECTOR)
      .send(JSON.stringify(body))
      .expect(400);
    expect(res.body.error.code).toBe(-32020);
    expect(res.headers['access-control-allow-origin']).toBe(INSPECTOR);
  });

  it('still refuses a POST from a foreign origin (403) without CORS headers', async () => {
    const body = mcpMessage('tools/list');
    const res = await crossOriginPost(app, body, FOREIGN).expect(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS off by default', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'no-cors', version: '1.0.0' })]);
  });
  afterAll(() => app.close());

  it('answers a preflight 405 with no CORS headers', async () => {
    const res = await request(app.getHttpServer())
      .options('/mcp')
      .set('origin', INSPECTOR)
      .set('access-control-request-method', 'POST')
      .expect(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS ahead of Nest middleware and guards, under a global prefix', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'guarded', version: '1.0.0', http: { cors: true } })],
      providers: [
        {
          provide: APP_GUARD,
          useValue: {
            canActivate: (ctx: ExecutionContext) => Boolean(ctx.switchToHttp().getRequest().headers.authorization),
          },
        },
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.setGlobalPrefix('api');
    app.use(
      (
        req: { method: string; headers: Record<string, string> },
        res: { statusCode: number; end(): void },
        next: () => void,
      ) => {
        // An app-wide middleware that would turn a preflight (which carries no credentials) away.
        if (!req.headers.authorization) {
          res.statusCode = 401;
          return res.end();
        }
        next();
      },
    );
    await app.init();
  });
  afterAll(() => app.close());

  it('answers the preflight before middleware and guards that need credentials', async () => {
    const res = await preflight(app, INSPECTOR, 'authorization, mcp-method', '/api/mcp').expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(INSPECTOR);
    expect(res.headers['access-control-allow-headers']).toContain('authorization');
  });

  it('keeps the credentialed POST behind them', async () => {
    const body = mcpMessage('server/discover');
    const denied = await crossOriginPost(app, body, INSPECTOR, '/api/mcp');
    expect(denied.status).toBe(401);
    const allowed = await request(app.getHttpServer())
      .post('/api/mcp')
      .set(mcpHeaders(body))
      .set('origin', INSPECTOR)
      .set('authorization', 'Bearer anything')
      .send(JSON.stringify(body))
      .expect(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(INSPECTOR);
  });
});

describe('The app.enableCors(...) recipe (module option off)', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'recipe', version: '1.0.0' })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.enableCors({
      origin: [INSPECTOR],
      methods: ['POST'],
      exposedHeaders: ['WWW-Authenticate', 'MCP-Protocol-Version'],
    });
    await app.init();
  });
  afterAll(() => app.close());

  it('answers the preflight, reflecting the requested MCP headers', async () => {
    const res = await preflight(app, INSPECTOR).expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(INSPECTOR);
    expect(res.headers['access-control-allow-headers']).toContain('mcp-param-region');
  });

  it('marks the POST readable', async () => {
    const body = mcpMessage('server/discover');
    const res = await crossOriginPost(app, body).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe(INSPECTOR);
    expect(res.headers['access-control-expose-headers']).toBe('WWW-Authenticate,MCP-Protocol-Version');
  });
});

describe('CORS on Fastify (the body is read in a preParsing hook, not the Express layer)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    // A global guard that turns away what carries no credentials, as a preflight never does.
    const guard = {
      provide: APP_GUARD,
      useValue: {
        canActivate: (ctx: ExecutionContext) => Boolean(ctx.switchToHttp().getRequest().headers.authorization),
      },
    };
    app = await createApp(
      [McpModule.forRoot({ name: 'cors-fastify', version: '1.0.0', http: { cors: true } })],
      [guard],
      'fastify',
    );
    app
      .get(MCPServer)
      .registerTool(
        'echo',
        'Echoes',
        { type: 'object', properties: { text: { type: 'string' } } },
        (a: { text?: string }) => a.text ?? '',
      );
  });
  afterAll(() => app.close());

  it('answers the preflight ahead of the guard', async () => {
    const res = await preflight(app, INSPECTOR).expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(INSPECTOR);
  });

  it('marks a cross-origin POST readable, and a refusal decided while reading its body too', async () => {
    const body = mcpMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const res = await request(app.getHttpServer())
      .post('/mcp')
      .set(mcpHeaders(body))
      .set('origin', INSPECTOR)
      .set('authorization', 'Bearer anything')
      .send(JSON.stringify(body))
      .expect(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(res.headers['access-control-allow-origin']).toBe(INSPECTOR);
    expect(res.headers['access-control-expose-headers']).toBe(
      'WWW-Authenticate, MCP-Protocol-Version, Retry-After, RateLimit-Limit, RateLimit-Remaining',
    );
    const refused = await request(app.getHttpServer())
      .post('/mcp')
      .set({ ...mcpHeaders(body), 'content-type': 'text/plain' })
      .set('origin', INSPECTOR)
      .send(JSON.stringify(body))
      .expect(415);
    expect(refused.body.error.code).toBe(-32600);
    expect(refused.headers['access-control-allow-origin']).toBe(INSPECTOR);
  });
});
