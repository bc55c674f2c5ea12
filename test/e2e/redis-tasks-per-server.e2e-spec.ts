import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { ErrorCode, MCPServer, McpModule } from '../../src/index.js';
import { McpRedisBackends, McpRedisModule } from '../../src/redis/index.js';
import { createApp } from '../support/create-app.js';
import { until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { taskRequest, type Json } from '../support/task-requests.js';

jest.setTimeout(30_000);

/** One app of its own (its own Redis connections), serving one MCP server named `name`, with at most one task. */
async function serverApp(name: string, keyPrefix: string): Promise<INestApplication> {
  const app = await createApp([
    McpRedisModule.forRoot({ url: MACHINE_REDIS_URL, keyPrefix }),
    McpModule.forRootAsync({
      inject: [McpRedisBackends],
      useFactory: (redis: McpRedisBackends) => ({
        name,
        version: '1.0.0',
        ...redis,
        tasks: { ...redis.tasks, maxTasks: 1 },
      }),
    }),
  ]);
  app.get(MCPServer).addTool({
    name: 'slow_job',
    description: 'A job run as a task',
    inputSchema: { type: 'object' },
    taskSupport: 'required',
    handler: () => new Promise(() => undefined),
  });
  return app;
}

/** Security round 2, finding 2: two servers on one Redis key prefix never see each other's tasks. */
describe('nestjs-mcp/redis: tasks are per server, across two apps on one key prefix', () => {
  const keyPrefix = testKeyPrefix();
  let pay: INestApplication;
  let admin: INestApplication;

  beforeAll(async () => {
    [pay, admin] = await Promise.all([serverApp('pay', keyPrefix), serverApp('admin', keyPrefix)]);
    await until(() => [pay, admin].every((app) => app.get(McpRedisBackends).listening), 'both apps listen on Redis');
  });
  afterAll(() => Promise.all([pay, admin].map((app) => app?.close())));

  const call = (app: INestApplication): Promise<Json> =>
    taskRequest(app, 'tools/call', { name: 'slow_job', arguments: {} }).then((res) => res.body);

  it("neither gets nor cancels the other's task, and their task limits are counted apart", async () => {
    const created = await call(pay);
    expect(created.result).toMatchObject({ resultType: 'task' });
    const { taskId } = created.result;
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const res = await taskRequest(admin, method, { taskId });
      expect(res.body.error).toMatchObject({ code: ErrorCode.InvalidParams });
    }
    // pay holds its whole limit of one task; admin's own is untouched, and its task is just as invisible to pay.
    expect((await call(pay)).error).toMatchObject({ data: { reason: 'task_limit' } });
    const adminTask = await call(admin);
    expect(adminTask.result).toMatchObject({ resultType: 'task' });
    expect((await taskRequest(pay, 'tasks/get', { taskId: adminTask.result.taskId })).body.error).toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    expect((await taskRequest(pay, 'tasks/get', { taskId })).body.result).toMatchObject({ taskId, status: 'working' });
  });
});
