import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { bootstrapTaskWorker } from '../../src/bullmq/index.js';
import { queueAppModule } from './bullmq-app.js';

/**
 * `bullmq-process.ts web` (on PORT; Fastify with MCP_ADAPTER=fastify) or `bullmq-process.ts worker`: the queue
 * test app as a web instance that only queues, or as a worker. Each says `ready` on stdout once it serves.
 */
async function main(): Promise<void> {
  const module = queueAppModule(process.env);
  if (process.argv[2] === 'worker') {
    await bootstrapTaskWorker(module, { logger: ['error', 'warn'] });
  } else {
    const app =
      process.env.MCP_ADAPTER === 'fastify'
        ? await NestFactory.create(module, new FastifyAdapter(), { logger: ['error', 'warn'] })
        : await NestFactory.create(module, { logger: ['error', 'warn'] });
    app.enableShutdownHooks();
    await app.listen(Number(process.env.PORT), '127.0.0.1');
  }
  console.log(`ready ${process.pid}`);
}

void main();
