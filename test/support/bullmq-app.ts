import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { Args, McpCtx, McpModule, Tool, type McpContext } from '../../src/index.js';
import { McpBullModule, McpTaskQueue } from '../../src/bullmq/index.js';
import { McpRedisBackends, McpRedisModule } from '../../src/redis/index.js';

const STEPS = { type: 'object', properties: { steps: { type: 'integer', minimum: 0, maximum: 600 } } };
const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

/**
 * Tools for the queue tests: each says which process runs it (in its status message and its result), and a
 * stopped one records in Redis that its signal fired, so a test in another process can see it.
 */
@Injectable()
export class QueueTools {
  private readonly redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true });

  @Tool({ description: 'Works `steps` tenths of a second', inputSchema: STEPS, taskSupport: 'required' })
  async work(@Args('steps') steps: number | undefined, @McpCtx() ctx: McpContext) {
    return this.steps(steps ?? 10, ctx);
  }

  @Tool({ description: 'As work, safe to run again', inputSchema: STEPS, taskSupport: 'required', retry: 1 })
  async idempotent_work(@Args('steps') steps: number | undefined, @McpCtx() ctx: McpContext) {
    return this.steps(steps ?? 10, ctx);
  }

  @Tool({ description: 'Asks a name, then greets', taskSupport: 'required' })
  async greet_asked(@McpCtx() ctx: McpContext) {
    await this.redis.incr(`${process.env.REDIS_KEY_PREFIX}runs:${ctx.taskId}`);
    const answer = await ctx.elicit('Your name?', NAME_FORM, { key: 'name' });
    return `Hello, ${String(answer.content?.name)} (from ${process.pid})`;
  }

  private async steps(steps: number, ctx: McpContext): Promise<string> {
    ctx.reportProgress({ progress: 0, message: `running in ${process.pid}` });
    ctx.signal.addEventListener('abort', () => {
      void this.redis.set(`${process.env.REDIS_KEY_PREFIX}aborted:${ctx.taskId}`, String(process.pid));
    });
    for (let step = 0; step < steps; step++) await sleep(100, undefined, { signal: ctx.signal });
    return `done in ${process.pid}`;
  }
}

/** The app the queue tests run as web instances and as workers: one module, like an app's AppModule. */
export function queueAppModule(env: NodeJS.ProcessEnv): DynamicModule {
  const url = env.REDIS_URL!;
  const keyPrefix = env.REDIS_KEY_PREFIX!;
  const interval = Number(env.MCP_TASK_STALLED_MS ?? 1_000);
  const { hostname, port } = new URL(url);
  @Module({
    imports: [
      BullModule.forRoot({ connection: { host: hostname, port: Number(port) }, prefix: `${keyPrefix}bull` }),
      McpRedisModule.forRoot({ url, keyPrefix }),
      McpBullModule.forRoot({
        queue: 'tasks',
        runJobs: false,
        worker: { concurrency: 1, lockDuration: interval, stalledInterval: interval },
      }),
      McpModule.forRootAsync({
        inject: [McpRedisBackends, McpTaskQueue],
        useFactory: (redis: McpRedisBackends, queue: McpTaskQueue) => ({
          name: 'queue-tests',
          version: '1.0.0',
          ...redis,
          requestState: { ...redis.requestState, secret: 'queue-tests-secret-queue-tests-secret' },
          tasks: { ...redis.tasks, queue, pollIntervalMs: 100 },
        }),
      }),
    ],
    providers: [QueueTools],
  })
  class QueueAppModule {}
  return { module: QueueAppModule };
}
