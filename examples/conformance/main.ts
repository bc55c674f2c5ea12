import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConformanceModule } from './app.module.js';

/** Starts the conformance fixture on 127.0.0.1 (the suite's DNS-rebinding checks need a loopback URL). */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(ConformanceModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, '127.0.0.1');
  console.log(`MCP conformance fixture listening on http://127.0.0.1:${port}/mcp`);
}

void bootstrap();
