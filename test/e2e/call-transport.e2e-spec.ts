import 'reflect-metadata';
import { jest } from '@jest/globals';
import {
  Injectable,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
} from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { Redis } from 'ioredis';
import { Args, MCPServer, McpCtx, McpExecutionContext, McpModule, Tool, type McpContext } from '../../src/index.js';
import { McpBullModule, McpTaskQueue } from '../../src/bullmq/index.js';
import { McpRedisBackends, McpRedisModule } from '../../src/redis/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp, HTTP_ADAPTERS, type HttpAdapterName } from '../support/create-app.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { createTask, waitForStatus } from '../support/task-requests.js';

/**
 * Every way a tool runs tells its handler, and the guards and interceptors around it, how the call really
 * arrived: a call in its HTTP request and a task it starts in this process say `'http'`, a round a BullMQ
 * worker takes from the queue says `'queue'` (it has no request to speak of).
 */

// A real BullMQ worker in this process, on the machine's Redis shared with other work.
jest.setTimeout(60_000);

/** What the interceptor read from `getTransport()` and the handler from `ctx.transport`, per call. */
const seen: Array<{ label: string; interceptor: string; handler: string }> = [];

@Injectable()
class RecordTransport implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    const mcp = McpExecutionContext.create(context);
    seen.push({ label: mcp.getArgs<{ label: string }>().label, interceptor: mcp.getTransport(), handler: '' });
    return next.handle();
  }
}

@Injectable()
class TransportTools {
  @Tool({
    name: 'where',
    description: 'Says how the call arrived',
    inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
    taskSupport: 'optional',
  })
  @UseInterceptors(RecordTransport)
  where(@Args() args: { label: string }, @McpCtx() ctx: McpContext): string {
    seen.find((entry) => entry.label === args.label)!.handler = String(ctx.transport);
    return 'here';
  }
}

function transportsOf(label: string) {
  const found = seen.filter((entry) => entry.label === label);
  return found.map(({ interceptor, handler }) => ({ interceptor, handler }));
}

async function inProcessApp(adapter: HttpAdapterName): Promise<INestApplication> {
  return createApp(
    // Every call of the extension a task: `where` answers at once, which would be answered in place of one.
    [McpModule.forRoot({ name: 'transport-in-process', version: '1.0.0', tasks: { immediateResultMs: false } })],
    [TransportTools, RecordTransport],
    adapter,
  );
}

async function queuedApp(adapter: HttpAdapterName, keyPrefix: string): Promise<INestApplication> {
  return createApp(
    [
      BullModule.forRoot({ connection: { host: '127.0.0.1', port: 6379 }, prefix: `${keyPrefix}bull` }),
      McpRedisModule.forRoot({ url: MACHINE_REDIS_URL, keyPrefix }),
      // By name: the worker finds the server through its public token, as `bootstrapTaskWorker`'s app does.
      McpBullModule.forRoot({ queue: 'transport', server: 'transport-queued' }),
      McpModule.forRootAsync({
        name: 'transport-queued',
        inject: [McpRedisBackends, McpTaskQueue],
        useFactory: (redis: McpRedisBackends, queue: McpTaskQueue) => ({
          name: 'transport-queued',
          version: '1.0.0',
          ...redis,
          requestState: { ...redis.requestState, secret: 'call-transport-secret-call-transport-secret' },
          tasks: { ...redis.tasks, queue },
        }),
      }),
    ],
    [TransportTools, RecordTransport],
    adapter,
  );
}

describe.each(HTTP_ADAPTERS)('the transport a call reports (%s)', (adapter) => {
  it('is http for a call answered in its HTTP request', async () => {
    const app = await inProcessApp(adapter);
    try {
      const label = `${adapter}-direct`;
      const res = await createMcpTestClient(app).post(
        mcpMessage('tools/call', { name: 'where', arguments: { label } }),
      );
      expect(res.body.result).toMatchObject({ content: [{ type: 'text', text: 'here' }] });
      expect(transportsOf(label)).toEqual([{ interceptor: 'http', handler: 'http' }]);
    } finally {
      await app.close();
    }
  });

  it('is stdio for a call without a request (MCPServer.handleRequest, as the stdio transport makes)', async () => {
    const app = await inProcessApp(adapter);
    try {
      const label = `${adapter}-in-process`;
      const answer = await app
        .get(MCPServer)
        .handleRequest(mcpMessage('tools/call', { name: 'where', arguments: { label } }, { id: 7 }));
      expect(answer).toMatchObject({ result: { content: [{ type: 'text', text: 'here' }] } });
      expect(transportsOf(label)).toEqual([{ interceptor: 'stdio', handler: 'stdio' }]);
    } finally {
      await app.close();
    }
  });

  it('is http for a task run in the process whose HTTP request started it', async () => {
    const app = await inProcessApp(adapter);
    try {
      const label = `${adapter}-task`;
      const { taskId } = await createTask(app, 'where', { label });
      await waitForStatus(app, taskId, 'completed');
      expect(transportsOf(label)).toEqual([{ interceptor: 'http', handler: 'http' }]);
    } finally {
      await app.close();
    }
  });

  it('is queue for a round a BullMQ worker takes from the queue, not the stdio of a call without a request', async () => {
    const keyPrefix = testKeyPrefix();
    const app = await queuedApp(adapter, keyPrefix);
    const redis = new Redis(MACHINE_REDIS_URL);
    try {
      const label = `${adapter}-queued`;
      // `where` answers at once, yet with a queue it is a task: its handler runs on a worker, never in the request.
      const { taskId } = await createTask(app, 'where', { label });
      await waitForStatus(app, taskId, 'completed');
      expect(transportsOf(label)).toEqual([{ interceptor: 'queue', handler: 'queue' }]);
    } finally {
      await app.close();
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
