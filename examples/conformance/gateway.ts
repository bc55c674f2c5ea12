import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpModule } from '../../src/index.js';

/**
 * A gateway in front of the conformance fixture: an app with no primitives of its own that mounts the fixture
 * running at `UPSTREAM_URL` with `prefix: ''`, so the referee sees the fixture's names through it. Started by
 * `scripts/conformance.mjs --gateway`, on 127.0.0.1 at `PORT`.
 */
async function bootstrap(): Promise<void> {
  const url = process.env.UPSTREAM_URL;
  if (!url) throw new Error('UPSTREAM_URL is required: the conformance fixture the gateway mounts');
  @Module({
    imports: [
      McpModule.forRoot({ name: 'nestjs-mcp-conformance-gateway', version: '1.0.0', upstreams: [{ prefix: '', url }] }),
    ],
  })
  class GatewayModule {}
  const app = await NestFactory.create(GatewayModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3001);
  await app.listen(port, '127.0.0.1');
  console.log(`MCP conformance gateway listening on http://127.0.0.1:${port}/mcp, mounting ${url}`);
}

void bootstrap();
