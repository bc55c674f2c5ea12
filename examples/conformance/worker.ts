import 'reflect-metadata';
import { bootstrapTaskWorker } from '../../src/bullmq/index.js';
import { ConformanceModule } from './app.module.js';

/**
 * The conformance fixture as a task worker (`npm run conformance:worker`): with `MCP_TASKS=bullmq` it runs the
 * jobs the web instances (`main.ts`) queue, and says `ready` once it takes them. Without it there is no queue,
 * and it exits at once.
 */
async function bootstrap(): Promise<void> {
  if (process.env.MCP_TASKS !== 'bullmq' || !process.env.REDIS_URL) {
    console.log('MCP task worker: no queue (set MCP_TASKS=bullmq and REDIS_URL); nothing to run');
    return;
  }
  await bootstrapTaskWorker(ConformanceModule, { logger: ['error', 'warn'] });
  console.log('MCP task worker ready');
}

void bootstrap();
