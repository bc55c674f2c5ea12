import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { FleetInstance, startFleetInstance, until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { mcpMessage } from '../../src/testing/index.js';
import { LiveResponse } from '../support/sse-client.js';
import { TaskJobs, WITH_TASKS_AND_FORMS } from '../support/task-jobs.js';
import { createTask } from '../support/task-requests.js';

// Real Redis, two Nest apps in one process, and a plain subscriber on the event channel.
jest.setTimeout(30_000);

/** What one listen stream hears of a task until it ends: its statuses in order. */
async function statusesUntilEnd(stream: LiveResponse): Promise<string[]> {
  const statuses: string[] = [];
  while (!statuses.includes('completed')) {
    const message = await stream.next();
    expect(message.method).toBe('notifications/tasks');
    statuses.push((message.params as { status: string }).status);
  }
  return statuses;
}

describe('nestjs-mcp/redis: task status events published with the record', () => {
  const keyPrefix = testKeyPrefix();
  const work = [new TaskJobs(), new TaskJobs()];
  const subscriber = new Redis(MACHINE_REDIS_URL);
  const reader = new Redis(MACHINE_REDIS_URL);
  let a: FleetInstance;
  let b: FleetInstance;

  beforeAll(async () => {
    [a, b] = await Promise.all([0, 1].map(() => startFleetInstance({ url: MACHINE_REDIS_URL, keyPrefix })));
    [a, b].forEach((instance, i) => work[i].tools().forEach((tool) => instance.server.addTool(tool)));
    await until(() => [a, b].every((instance) => instance.backends.listening), 'both instances listen on Redis');
  });

  afterAll(async () => {
    await Promise.all([a, b].map((instance) => instance?.close()));
    subscriber.disconnect();
    reader.disconnect();
  });

  function listen(instance: FleetInstance, taskId: string): Promise<LiveResponse> {
    return LiveResponse.post(
      instance.url,
      mcpMessage(
        'subscriptions/listen',
        { notifications: { taskIds: [taskId] } },
        { id: 'listen-tasks', clientCapabilities: WITH_TASKS_AND_FORMS },
      ),
    );
  }

  it('puts the result on the channel once, readable when heard, and both instances’ streams hear it once', async () => {
    const channel = `${keyPrefix}events`;
    const sentinel = JSON.stringify({ sentinel: true });
    const created = await createTask(a.app, 'long_job');
    await until(() => work[0].started === 1, 'the job runs on A');
    // Each message about the task, with the record as Redis holds it when the message arrives.
    const heard: Array<{ status: string; stored: string | undefined }> = [];
    let sentinelHeard = false;
    const reads: Array<Promise<void>> = [];
    subscriber.on('message', (name: string, message: string) => {
      if (name !== channel) return;
      if (message === sentinel) sentinelHeard = true;
      const event = (JSON.parse(message) as { e?: { type: string; task: { taskId: string; status: string } } }).e;
      if (event?.type !== 'tasks/status' || event.task.taskId !== created.taskId) return;
      reads.push(
        reader.get(`${keyPrefix}{task:fleet:${created.taskId}}`).then((raw) => {
          heard.push({
            status: event.task.status,
            stored: raw ? (JSON.parse(raw) as { status: string }).status : undefined,
          });
        }),
      );
    });
    await subscriber.subscribe(channel);
    const [onA, onB] = await Promise.all([listen(a, created.taskId), listen(b, created.taskId)]);
    try {
      for (const stream of [onA, onB])
        expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged');
      work[0].done();
      // A hears its own result without the channel (it skips its echo), B through it: each once.
      expect(await statusesUntilEnd(onA)).toEqual(['completed']);
      expect(await statusesUntilEnd(onB)).toEqual(['completed']);
      // Any second copy of the event was sent before A's stream heard the first: it precedes this one.
      await reader.publish(channel, sentinel);
      await until(() => sentinelHeard, 'the subscriber hears the sentinel');
      await Promise.all(reads);
      expect(heard).toEqual([{ status: 'completed', stored: 'completed' }]);
    } finally {
      onA.close();
      onB.close();
    }
  });
});
