import 'reflect-metadata';
import { Controller, Module, Post, Req, type NestModule } from '@nestjs/common';
import { ExternalContextCreator, NestFactory } from '@nestjs/core';
import { GuardsContextCreator } from '@nestjs/core/guards/index.js';
import { NestContainer } from '@nestjs/core/injector/container.js';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';

/**
 * What the MCP route's body layers (src/http/front: express-front-layer.ts for Express, fastify-front-layer.ts
 * for Fastify) rely on that neither Nest nor the adapters document as API. No supported hook does the job: Nest
 * installs its body parsers app-wide before any module middleware, and Fastify has no per-route "do not parse".
 * These tests pin each assumption, so an adapter release that changes one fails here, by name, before the
 * end-to-end tests fail in a less obvious way.
 */
describe('Adapter behaviour the MCP body layers depend on', () => {
  it('Nest runs module configure() (the middleware phase) before it registers routes', async () => {
    const order: string[] = [];
    @Controller('probe')
    class ProbeController {
      @Post()
      probe(): string {
        return 'ok';
      }
    }
    @Module({ controllers: [ProbeController] })
    class ProbeModule implements NestModule {
      configure(): void {
        order.push('configure');
      }
    }
    const adapter = new FastifyAdapter();
    adapter.getInstance().addHook('onRoute', (route) => {
      if (route.url === '/probe') order.push('route');
    });
    const app = await NestFactory.create(ProbeModule, adapter, { logger: false });
    await app.init();
    await app.close();
    expect(order).toEqual(['configure', 'route']);
  });

  it('Express: the app router is an array stack, app.use appends, and Nest put its JSON parser in it before bootstrap', async () => {
    @Module({})
    class EmptyModule {}
    const app = await NestFactory.create(EmptyModule, { logger: false });
    await app.init();
    const express = app.getHttpAdapter().getInstance() as {
      use: (fn: unknown) => void;
      router: { stack: Array<{ name: string; handle: unknown }> };
    };
    expect(Array.isArray(express.router.stack)).toBe(true);
    expect(express.router.stack.some((layer) => layer.name === 'jsonParser')).toBe(true);
    const handler = () => undefined;
    express.use(handler);
    expect(express.router.stack.at(-1)?.handle).toBe(handler);
    await app.close();
  });

  it("Express: a layer moved to the router's front runs before Nest's JSON parser, which skips a body already read", async () => {
    @Controller('mcp')
    class ProbeController {
      @Post()
      probe(@Req() req: { body?: unknown; readByLayer?: string }): unknown {
        return { parsed: req.body ?? null, readByLayer: req.readByLayer };
      }
    }
    @Module({ controllers: [ProbeController] })
    class ProbeModule {}
    const app = await NestFactory.create(ProbeModule, { logger: false });
    await app.init();
    const express = app.getHttpAdapter().getInstance() as {
      use: (fn: (req: IncomingMessage, res: unknown, next: () => void) => void) => void;
      router: { stack: unknown[] };
    };
    // What express-front-layer.ts does: read the body itself, then move its layer in front of the parser.
    express.use((req, _res, next) => {
      if (req.url !== '/mcp') return next();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        (req as IncomingMessage & { readByLayer?: string }).readByLayer = Buffer.concat(chunks).toString();
        next();
      });
    });
    const stack = express.router.stack;
    stack.unshift(stack.pop());
    try {
      const response = await request(app.getHttpServer()).post('/mcp').send({ a: 1 }).expect(201);
      expect(response.body).toEqual({ parsed: null, readByLayer: '{"a":1}' });
    } finally {
      await app.close();
    }
  });

  it('Fastify: a request declaring no body is not parsed, and preValidation runs after parsing, before the handler', async () => {
    // The Fastify instance Nest's adapter creates, so the version tested is the one Nest brings.
    const fastify = new FastifyAdapter().getInstance();
    const seen: string[] = [];
    fastify.addContentTypeParser(
      'application/json',
      { parseAs: 'string' },
      (_req: unknown, _body: unknown, done: (error: Error | null, body?: unknown) => void) => {
        seen.push('parser');
        done(null, {});
      },
    );
    fastify.post(
      '/mcp',
      {
        preParsing: (request, _reply, payload, done) => {
          seen.push('preParsing');
          // What the hook does once it has read the body itself: the request no longer declares one.
          request.raw.headers['content-type'] = undefined;
          request.raw.headers['content-length'] = '0';
          done(null, payload);
        },
        preValidation: (request, _reply, done) => {
          seen.push(`preValidation:${String(request.body)}`);
          done();
        },
      },
      async () => {
        seen.push('handler');
        return 'ok';
      },
    );
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fastify.server.address() as AddressInfo;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(response.status).toBe(200);
    } finally {
      await fastify.close();
    }
    expect(seen).toEqual(['preParsing', 'preValidation:undefined', 'handler']);
  });
});

describe('Nest behaviour the public-listen warning depends on', () => {
  it('app.listen(port, host) makes one call to the HTTP adapter, listen(port, host, callback)', async () => {
    @Module({})
    class EmptyModule {}
    const app = await NestFactory.create(EmptyModule, { logger: false });
    const adapter = app.getHttpAdapter() as unknown as { listen: (...args: unknown[]) => unknown };
    const listen = adapter.listen.bind(adapter);
    const calls: unknown[][] = [];
    adapter.listen = (...args: unknown[]) => {
      calls.push(args);
      return listen(...args);
    };
    await app.listen(0, '127.0.0.1');
    await app.close();
    expect(calls).toHaveLength(1);
    expect(calls[0].slice(0, 2)).toEqual([0, '127.0.0.1']);
  });
});

describe('Nest behaviour the MCP handler pipeline depends on', () => {
  it('the injectable ExternalContextCreator holds the container as a property, and a guards context creator without the application config leaves the global guards out', async () => {
    @Module({})
    class EmptyModule {}
    const app = await NestFactory.createApplicationContext(EmptyModule, { logger: false });
    try {
      const creator = app.get(ExternalContextCreator);
      const container = (creator as unknown as { container?: NestContainer }).container;
      expect(container).toBeInstanceOf(NestContainer);
      container!.applicationConfig!.addGlobalGuard({ canActivate: () => false });
      expect(new GuardsContextCreator(container!, container!.applicationConfig).getGlobalMetadata()).toHaveLength(1);
      expect(new GuardsContextCreator(container!).getGlobalMetadata()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
