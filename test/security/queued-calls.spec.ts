import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, type CanActivate, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { BullModule } from '@nestjs/bullmq';
import { Redis } from 'ioredis';
import { MCPServer, McpError, McpModule, type McpContext } from '../../src/index.js';
import { McpBullModule, McpTaskQueue } from '../../src/bullmq/index.js';
import { McpRedisBackends, McpRedisModule } from '../../src/redis/index.js';
import { createApp, HTTP_ADAPTERS, type HttpAdapterName } from '../support/create-app.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { createTask, getTask, taskRequest, waitForStatus, type Json } from '../support/task-requests.js';

/**
 * Queued task calls (security round 4): the call a queued task keeps in Redis counts against its caller's byte
 * share (`tasks.maxResultBytesPerCaller`) and is dropped once the task ends; it is signed under
 * `requestState.secret`, and a real BullMQ worker runs no call someone changed in Redis.
 */

// A real BullMQ worker in this process, on the machine's Redis shared with other work.
jest.setTimeout(60_000);

const SERVER = 'queued-calls';
const SHARE = 64 * 1024;
const TEXT = { type: 'object', properties: { text: { type: 'string' } } } as const;

/** `x-user: <name>` is the caller; a worker's local request already carries the queued call's principal. */
@Injectable()
class UserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: unknown }>();
    if (typeof req.user === 'object' && req.user !== null) return true;
    req.user = { id: req.headers['x-user'] };
    return typeof req.headers['x-user'] === 'string';
  }
}

async function queueApp(adapter: HttpAdapterName, keyPrefix: string): Promise<INestApplication> {
  const app = await createApp(
    [
      BullModule.forRoot({ connection: { host: '127.0.0.1', port: 6379 }, prefix: `${keyPrefix}bull` }),
      McpRedisModule.forRoot({ url: MACHINE_REDIS_URL, keyPrefix }),
      McpBullModule.forRoot({ queue: 'calls' }),
      McpModule.forRootAsync({
        inject: [McpRedisBackends, McpTaskQueue],
        useFactory: (redis: McpRedisBackends, queue: McpTaskQueue) => ({
          name: SERVER,
          version: '1.0.0',
          ...redis,
          auth: { identify: (user: { id: string }) => user.id },
          requestState: { ...redis.requestState, secret: 'queued-calls-secret-queued-calls-secret' },
          tasks: { ...redis.tasks, queue, maxResultBytesPerCaller: SHARE },
        }),
      }),
    ],
    [{ provide: APP_GUARD, useClass: UserGuard }],
    adapter,
  );
  return app;
}

/** Everything under the prefix, values included, as one string: what Redis keeps of the test's tasks. */
async function everythingIn(redis: Redis, keyPrefix: string): Promise<string> {
  const parts: string[] = [];
  for (const key of await redis.keys(`${keyPrefix}*`)) {
    const type = await redis.type(key);
    if (type === 'string') parts.push((await redis.get(key)) ?? '');
    else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, '0', '-1')));
    else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
    else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
  }
  return parts.join('\n');
}

/** Polls tasks/get until the task has ended, whichever way (the jest timeout bounds it). */
async function ended(app: INestApplication, taskId: string, user: string): Promise<Json> {
  for (;;) {
    const task = await getTask(app, taskId, { headers: { 'x-user': user } });
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe.each(HTTP_ADAPTERS)('security round 4: queued task calls (%s)', (adapter) => {
  const keyPrefix = testKeyPrefix();
  const redis = new Redis(MACHINE_REDIS_URL);
  const runs: string[] = [];
  const logged: string[] = [];
  let app: INestApplication;
  const as = (user: string) => ({ headers: { 'x-user': user } });

  beforeAll(async () => {
    app = await queueApp(adapter, keyPrefix);
    const server = app.get(MCPServer);
    const tool = { inputSchema: TEXT, taskSupport: 'required' as const };
    server.addTool({
      ...tool,
      name: 'hold',
      description: 'Holds its call until cancelled',
      handler: (_args: unknown, _answers: unknown, ctx: McpContext) =>
        new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
    });
    server.addTool({
      ...tool,
      name: 'echo',
      description: 'Counts the characters it was given',
      handler: (args: { text?: string }) => {
        runs.push(`echo ${String(args.text)}`);
        return `${String(args.text?.length)} characters`;
      },
    });
    server.addTool({
      ...tool,
      name: 'fail',
      description: 'Fails with a protocol error',
      handler: () => {
        throw new McpError(-32603, 'it failed');
      },
    });
    server.addTool({
      ...tool,
      name: 'wipe',
      description: 'What nobody called',
      handler: () => {
        runs.push('wipe');
        return 'wiped';
      },
    });
    server.addTool({
      ...tool,
      name: 'whoami',
      description: 'Says who it runs as',
      handler: (_args: unknown, _answers: unknown, ctx: McpContext) => {
        runs.push(`whoami ${JSON.stringify(ctx.principal)}`);
        return JSON.stringify(ctx.principal);
      },
    });
    const collect = (message: unknown) => void logged.push(String(message));
    app.useLogger({ log: () => undefined, warn: collect, error: collect });
  });

  afterAll(async () => {
    await app.close();
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const cancel = async (taskId: string, user: string) => {
    const res = await taskRequest(app, 'tasks/cancel', { taskId }, as(user));
    expect(res.body.error).toBeUndefined();
  };

  it("refuses a call past the caller's byte share with the task-limit error, while another caller still gets its task", async () => {
    const blob = (char: string) => ({ text: char.repeat(25 * 1024) });
    const first = await createTask(app, 'hold', blob('a'), as('alice'));
    const second = await createTask(app, 'hold', blob('b'), as('alice'));

    const refused = await taskRequest(app, 'tools/call', { name: 'hold', arguments: blob('c') }, as('alice'));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.body.error).toEqual({
      code: -32023,
      message: `Too many tasks: this caller's tasks would keep more than ${SHARE} bytes of results and queued calls (tasks.maxResultBytesPerCaller); retry once some have expired`,
      data: { reason: 'task_limit', retryAfterMs: 60_000 },
    });

    const bobs = await createTask(app, 'hold', blob('d'), as('bob'));
    // A task that ends gives its call's bytes back: the caller may queue again.
    await cancel(first.taskId, 'alice');
    const third = await createTask(app, 'hold', blob('e'), as('alice'));
    await Promise.all([cancel(second.taskId, 'alice'), cancel(third.taskId, 'alice'), cancel(bobs.taskId, 'bob')]);
  });

  it('drops the arguments from Redis once a queued task has completed, failed or been cancelled', async () => {
    const marker = (what: string) => `argument-${what}-${keyPrefix}`;
    const held = await createTask(app, 'hold', { text: marker('cancelled') }, as('alice'));
    // While the task runs, its call is in Redis (so the search below would find what stayed).
    expect(await everythingIn(redis, keyPrefix)).toContain(marker('cancelled'));

    const echoed = await createTask(app, 'echo', { text: marker('completed') }, as('alice'));
    const failed = await createTask(app, 'fail', { text: marker('failed') }, as('alice'));
    await cancel(held.taskId, 'alice');
    const done = await waitForStatus(app, echoed.taskId, 'completed', as('alice'));
    expect(done.result.content[0].text).toBe(`${marker('completed').length} characters`);
    await waitForStatus(app, failed.taskId, 'failed', as('alice'));
    await waitForStatus(app, held.taskId, 'cancelled', as('alice'));

    const kept = await everythingIn(redis, keyPrefix);
    for (const what of ['completed', 'failed', 'cancelled']) expect(kept).not.toContain(marker(what));
    const record = JSON.parse((await redis.get(`${keyPrefix}{task:${SERVER}:${echoed.taskId}}`))!);
    expect(record).toMatchObject({ status: 'completed', taskId: echoed.taskId });
    expect(record.call).toBeUndefined();
    // The job names the task and its round, never the arguments.
    const job = await app.get(McpTaskQueue).queue.getJob(`${echoed.taskId}.0`);
    expect(job?.data).toEqual({ server: SERVER, taskId: echoed.taskId, owner: record.owner, tool: 'echo', round: 0 });
  });

  it.each([
    ['its tool, in the record and the job', 'echo', (call: Json) => ({ ...call, tool: 'wipe' }), 'wipe'],
    ['its principal', 'whoami', (call: Json) => ({ ...call, principal: { id: 'admin' } }), 'whoami'],
  ])(
    'refuses a queued call changed in Redis (%s): the task fails and the tool never runs',
    async (_what, tool, tamper, changedTool) => {
      const queue = app.get(McpTaskQueue).queue;
      await queue.pause();
      try {
        const created = await createTask(app, tool, { text: 'hi' }, as('alice'));
        const key = `${keyPrefix}{task:${SERVER}:${created.taskId}}`;
        const record = JSON.parse((await redis.get(key))!);
        expect(record.call.tool).toBe(tool);
        await redis.set(key, JSON.stringify({ ...record, call: tamper(record.call) }), 'KEEPTTL');
        const job = (await queue.getJob(`${created.taskId}.0`))!;
        await job.updateData({ ...job.data, tool: changedTool });
        await queue.resume();

        const failed = await ended(app, created.taskId, 'alice');
        expect(runs.filter((run) => run.startsWith(changedTool))).toEqual([]);
        expect(failed.status).toBe('failed');
        expect(failed.error.message).toBe(
          'Task failed: its stored call does not verify (signed under another requestState.secret, or changed in the store); the tool was not run',
        );
        expect(logged.join('\n')).toContain(`MCP tasks: refused to run task ${created.taskId}: its stored call fails`);
        // The record keeps nothing of the refused call either.
        expect(JSON.parse((await redis.get(key))!).call).toBeUndefined();
      } finally {
        await queue.resume();
      }
    },
  );

  it('runs an untouched queued call as its caller', async () => {
    const created = await createTask(app, 'whoami', {}, as('carol'));
    const done = await waitForStatus(app, created.taskId, 'completed', as('carol'));
    expect(done.result.content[0].text).toBe('{"id":"carol"}');
  });
});
