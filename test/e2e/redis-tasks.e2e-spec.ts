import 'reflect-metadata';
import { jest } from '@jest/globals';
import { FleetInstance, startFleetInstance, until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { mcpMessage } from '../../src/testing/index.js';
import { LiveResponse } from '../support/sse-client.js';
import { TaskJobs, WITH_TASKS_AND_FORMS } from '../support/task-jobs.js';
import { createTask, getTask, taskRequest, waitForStatus } from '../support/task-requests.js';

// Real Redis, several Nest apps in one process.
jest.setTimeout(30_000);

describe('nestjs-mcp/redis: tasks across instances', () => {
  const keyPrefix = testKeyPrefix();
  const work = [new TaskJobs(), new TaskJobs(), new TaskJobs()];
  let a: FleetInstance;
  let b: FleetInstance;
  let c: FleetInstance;

  beforeAll(async () => {
    [a, b, c] = await Promise.all([0, 1, 2].map(() => startFleetInstance({ url: MACHINE_REDIS_URL, keyPrefix })));
    [a, b, c].forEach((instance, i) => work[i].tools().forEach((tool) => instance.server.addTool(tool)));
    await until(() => [a, b, c].every((instance) => instance.backends.listening), 'every instance listens on Redis');
  });

  afterAll(() => Promise.all([a, b, c].map((instance) => instance?.close())));

  it('shows a task created on A to tasks/get on B as soon as A has answered, and tasks/cancel on C stops the work on A', async () => {
    const created = await createTask(a.app, 'long_job');
    // No wait of any kind: the record is in Redis before A sends its answer.
    expect(await getTask(b.app, created.taskId)).toMatchObject({ taskId: created.taskId, status: 'working' });
    await until(() => work[0].started === 1, 'the job runs on A');

    const ack = await taskRequest(c.app, 'tasks/cancel', { taskId: created.taskId });
    expect(ack.status).toBe(200);
    expect(ack.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    await until(() => work[0].stoppedBy !== undefined, "A's handler sees its signal fire");
    expect(await waitForStatus(b.app, created.taskId, 'cancelled')).toMatchObject({ status: 'cancelled' });
    // Only A ran it.
    expect(work.map((w) => w.started)).toEqual([1, 0, 0]);
  });

  it('hands an answer sent to B (tasks/update) to the task waiting for it on A, and C sees the result', async () => {
    const created = await createTask(a.app, 'confirm_job', {}, { capabilities: WITH_TASKS_AND_FORMS });
    const waiting = await waitForStatus(c.app, created.taskId, 'input_required', {
      capabilities: WITH_TASKS_AND_FORMS,
    });
    expect(waiting.inputRequests.go).toMatchObject({ method: 'elicitation/create' });
    expect(
      (
        await taskRequest(
          b.app,
          'tasks/update',
          { taskId: created.taskId, inputResponses: { go: { action: 'accept', content: { confirm: true } } } },
          { capabilities: WITH_TASKS_AND_FORMS },
        )
      ).status,
    ).toBe(200);
    const done = await waitForStatus(c.app, created.taskId, 'completed', { capabilities: WITH_TASKS_AND_FORMS });
    expect(done.result.content).toEqual([{ type: 'text', text: 'confirmed: true' }]);
  });

  it('lets a task finish while other instances poll it, and keeps its result for tasks/get everywhere', async () => {
    const created = await createTask(b.app, 'long_job');
    await until(() => work[1].started === 1, 'the job runs on B');
    work[1].done();
    for (const instance of [a, b, c]) {
      const done = await waitForStatus(instance.app, created.taskId, 'completed');
      expect(done.result.content).toEqual([{ type: 'text', text: 'long job done' }]);
    }
  });

  it("sends a task's status changes made on A to a listen stream on C that asked for it", async () => {
    const created = await createTask(a.app, 'confirm_job', {}, { capabilities: WITH_TASKS_AND_FORMS });
    // Open the stream only once the task waits for input: opened earlier, it may or may not see that change.
    await waitForStatus(b.app, created.taskId, 'input_required', { capabilities: WITH_TASKS_AND_FORMS });
    const stream = await LiveResponse.post(
      c.url,
      mcpMessage(
        'subscriptions/listen',
        { notifications: { taskIds: [created.taskId] } },
        { id: 'listen-tasks', clientCapabilities: WITH_TASKS_AND_FORMS },
      ),
    );
    try {
      expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged');
      expect(
        (
          await taskRequest(
            b.app,
            'tasks/update',
            { taskId: created.taskId, inputResponses: { go: { action: 'accept', content: { confirm: false } } } },
            { capabilities: WITH_TASKS_AND_FORMS },
          )
        ).status,
      ).toBe(200);
      const statuses: string[] = [];
      while (!statuses.includes('completed')) {
        const message = await stream.next();
        expect(message.method).toBe('notifications/tasks');
        expect((message.params as { taskId: string }).taskId).toBe(created.taskId);
        statuses.push((message.params as { status: string }).status);
      }
      // The answer sent to B resumed the task on A; C saw each change after the stream opened, once, in order.
      expect(statuses).toEqual(['working', 'completed']);
    } finally {
      stream.close();
    }
  });
});
