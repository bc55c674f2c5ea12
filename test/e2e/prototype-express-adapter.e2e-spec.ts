import 'reflect-metadata';
import {
  Body,
  Controller,
  Get,
  Module,
  Post,
  Req,
  type INestApplication,
  type NestApplicationOptions,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express } from 'express';
import type { IncomingMessage, Server } from 'node:http';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { MCPServer, McpModule } from '../../src/index.js';
import { PrototypeExpressAdapter } from '../../src/express/index.js';
import { createMcpTestClient, mcpHeaders, mcpMessage } from '../../src/testing/index.js';

const tls = (file: string) => readFileSync(new URL(`../support/tls/${file}`, import.meta.url));
const cert = tls('localhost.test-only.crt');

@Controller('plain')
class PlainController {
  @Post('echo')
  echo(@Body() body: unknown): unknown {
    return { echoed: body };
  }

  @Get('app')
  app(@Req() req: { app?: unknown; get(name: string): string | undefined }): {
    hasApp: boolean;
    host: string | undefined;
  } {
    return { hasApp: typeof req.app === 'function', host: req.get('host') };
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'proto', version: '1.0.0' })], controllers: [PlainController] })
class AppModule {}

async function start(
  adapter: ExpressAdapter,
  options: NestApplicationOptions = {},
): Promise<{ app: INestApplication; preset: boolean[] }> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication(adapter, { logger: false, ...options });
  const expressApp = app.getHttpAdapter().getInstance() as Express;
  // Sub-apps swap in their own prototypes as Express always did.
  const sub = express();
  sub.get('/', (req, res) => res.send(`sub ${req.baseUrl}`));
  expressApp.use('/sub', sub);
  app
    .get(MCPServer)
    .registerTool(
      'add',
      'Adds',
      { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      ({ a, b }: { a: number; b: number }) => a + b,
    );
  await app.init();
  // What each request is when the server hands it over, before Express sees it.
  const preset: boolean[] = [];
  (app.getHttpServer() as Server).prependListener('request', (req: IncomingMessage) =>
    preset.push(Object.getPrototypeOf(req) === expressApp.request),
  );
  return { app, preset };
}

describe('PrototypeExpressAdapter', () => {
  let app: INestApplication;
  let preset: boolean[];

  beforeAll(async () => ({ app, preset } = await start(new PrototypeExpressAdapter())));
  afterAll(() => app.close());

  it("creates each request with Express's prototype already in place (the plain adapter does not)", async () => {
    await request(app.getHttpServer()).get('/plain/app').expect(200);
    expect(preset.length).toBeGreaterThan(0);
    expect(preset.every(Boolean)).toBe(true);

    const plain = await start(new ExpressAdapter());
    try {
      await request(plain.app.getHttpServer()).get('/plain/app').expect(200);
      expect(plain.preset).toEqual([false]);
    } finally {
      await plain.app.close();
    }
  });

  it('serves MCP as the plain adapter does', async () => {
    const res = await createMcpTestClient(app).post(
      mcpMessage('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it("keeps Express working: Nest's JSON body parser, request helpers and a mounted sub-app", async () => {
    const echo = await request(app.getHttpServer()).post('/plain/echo').send({ hello: 'world' }).expect(201);
    expect(echo.body).toEqual({ echoed: { hello: 'world' } });
    const helpers = await request(app.getHttpServer()).get('/plain/app').set('host', 'example.test').expect(200);
    expect(helpers.body).toEqual({ hasApp: true, host: 'example.test' });
    const sub = await request(app.getHttpServer()).get('/sub').expect(200);
    expect(sub.text).toBe('sub /sub');
  });

  it("keeps the listeners Nest puts on its server (forceCloseConnections' connection tracking)", async () => {
    const count = async (adapter: ExpressAdapter) => {
      const started = await start(adapter, { forceCloseConnections: true });
      const listeners = (started.app.getHttpServer() as Server).listenerCount('connection');
      await started.app.close();
      return listeners;
    };
    const plain = await count(new ExpressAdapter());
    expect(plain).toBeGreaterThan(0);
    expect(await count(new PrototypeExpressAdapter())).toBe(plain);
  });

  it('does the same over HTTPS', async () => {
    const secure = await start(new PrototypeExpressAdapter(), {
      httpsOptions: { key: tls('localhost.test-only.key'), cert },
    });
    try {
      // Over TLS with a test CA, which the kit's client does not take: supertest sends the kit's request.
      const body = mcpMessage('tools/call', { name: 'add', arguments: { a: 4, b: 5 } });
      const res = await request(secure.app.getHttpServer())
        .post('/mcp')
        .set(mcpHeaders(body))
        .send(JSON.stringify(body))
        .ca(cert)
        .expect(200);
      expect(res.body.result.content).toEqual([{ type: 'text', text: '9' }]);
      expect(secure.preset).toEqual([true]);
    } finally {
      await secure.app.close();
    }
  });
});
