import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import { fixtureMcpModules } from '../../examples/conformance/mcp-setup.js';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { INSTANCE_LOST } from '../../src/server/tasks/task-store.js';
import { createApp } from '../support/create-app.js';
import { FixtureProcess } from '../support/fixture-process.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { closeListening, listenOnLoopback } from '../support/sse-client.js';
import { WITH_TASKS, type Json } from '../support/task-requests.js';

// A child process started from source, killed, and tasks polled for whole leases, on a machine shared with other work.
jest.setTimeout(120_000);

// Renewed every second: a child on a loaded machine has two seconds of slack before a healthy task would lapse.
const LEASE_MS = 3_000;

/** A tasks-extension request to one instance, answered in JSON. */
async function call(url: string, method: string, params: Json): Promise<Json> {
  const body = mcpMessage(method, params, { clientCapabilities: WITH_TASKS });
  const response = await fetch(url, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as Json;
  expect(answer.error).toBeUndefined();
  return answer.result;
}

/** Polls `tasks/get` until the task leaves `working`, recording each status seen; the bound is generous, not measured. */
async function pollUntilEnded(url: string, taskId: string, seen: string[] = []): Promise<Json> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const task = await call(url, 'tasks/get', { taskId });
    seen.push(task.status);
    if (task.status !== 'working') return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still working after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Two instances of the conformance fixture's server on one Redis prefix: one a child process that runs the
 * tasks (and is killed), the other in this process, which only reads them through the MCP API.
 */
describe(`a task whose instance dies (Redis task store, tasks.leaseMs ${LEASE_MS})`, () => {
  const keyPrefix = testKeyPrefix();
  const env = { REDIS_URL: MACHINE_REDIS_URL, REDIS_KEY_PREFIX: keyPrefix, MCP_TASK_LEASE_MS: String(LEASE_MS) };
  let runner: FixtureProcess;
  let reader: INestApplication;
  let runnerUrl: string;
  let readerUrl: string;

  beforeAll(async () => {
    runner = await FixtureProcess.start(env);
    runnerUrl = `${runner.origin}/mcp`;
    reader = await createApp(fixtureMcpModules(env));
    readerUrl = await listenOnLoopback(reader);
  }, 120_000);

  afterAll(async () => {
    await runner?.stop();
    if (reader) await closeListening(reader);
    const inspector = new Redis(MACHINE_REDIS_URL);
    const keys = await inspector.keys(`${keyPrefix}*`);
    if (keys.length > 0) await inspector.del(...keys);
    inspector.disconnect();
  });

  it('keeps a healthy task that runs for five leases working until it completes', async () => {
    const seconds = (5 * LEASE_MS) / 1_000;
    const created = await call(runnerUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const seen: string[] = [];
    const ended = await pollUntilEnded(readerUrl, created.taskId, seen);
    expect(ended).toMatchObject({ status: 'completed', result: { content: [{ type: 'text' }] } });
    expect(ended.result.content[0].text).toContain(`completed after ${seconds} seconds`);
    expect(seen.filter((status) => status === 'working').length).toBeGreaterThan(1);
  });

  it('shows the task failed, saying its instance was lost, soon after that instance is SIGKILLed', async () => {
    const created = await call(runnerUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: 3_600 } });
    expect((await call(readerUrl, 'tasks/get', { taskId: created.taskId })).status).toBe('working');
    await runner.kill();
    const ended = await pollUntilEnded(readerUrl, created.taskId);
    expect(ended).toMatchObject({
      taskId: created.taskId,
      status: 'failed',
      statusMessage: INSTANCE_LOST,
      error: { code: -32603, message: INSTANCE_LOST },
    });
    // The failure is stored: a cancel changes nothing, and the task reads the same afterwards.
    await call(readerUrl, 'tasks/cancel', { taskId: created.taskId });
    expect(await call(readerUrl, 'tasks/get', { taskId: created.taskId })).toEqual(ended);
  });
});
