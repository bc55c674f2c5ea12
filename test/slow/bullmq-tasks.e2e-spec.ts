import { jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { WORKER_LOST } from '../../src/server/tasks/task-queue.js';
import { HTTP_ADAPTERS } from '../support/create-app.js';
import { freePort, MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { WITH_TASKS, type Json } from '../support/task-requests.js';

// Child processes started from source, killed, and jobs moved by BullMQ's stalled check, on a shared machine.
jest.setTimeout(240_000);

const REGISTER = fileURLToPath(new URL('../support/ts-register.mjs', import.meta.url));
const ENTRY = fileURLToPath(new URL('../support/bullmq-process.ts', import.meta.url));
const ASK_ANSWERS = { elicitation: { form: {} }, ...WITH_TASKS };

interface Started {
  child: ChildProcess;
  pid: number;
  url?: string;
}

/** Starts the queue test app as a web instance or a worker, and resolves once it says `ready`. */
async function start(role: 'web' | 'worker', env: Record<string, string>): Promise<Started> {
  const port = role === 'web' ? await freePort() : 0;
  const child = spawn(process.execPath, ['--import', REGISTER, ENTRY, role], {
    env: { ...process.env, ...env, PORT: String(port), NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the ${role} exited with ${code} during start-up`)));
  });
  return { child, pid: child.pid!, url: role === 'web' ? `http://127.0.0.1:${port}/mcp` : undefined };
}

/** SIGKILL, as a crash or an OOM kill: no shutdown hook runs. Resolves once the process is gone. */
async function kill(process: Started, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (process.child.exitCode !== null || process.child.signalCode !== null) return;
  const exited = new Promise((resolve) => process.child.once('exit', resolve));
  process.child.kill(signal);
  await exited;
}

async function call(url: string, method: string, params: Json, capabilities: Json = WITH_TASKS): Promise<Json> {
  const body = mcpMessage(method, params, { clientCapabilities: capabilities });
  const response = await fetch(url, { method: 'POST', headers: mcpHeaders(body), body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as Json;
  expect(answer.error).toBeUndefined();
  return answer.result;
}

/** Polls `tasks/get` until `done` holds; the bound is generous, never asserted on. */
async function pollUntil(url: string, taskId: string, done: (task: Json) => boolean): Promise<Json> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const task = await call(url, 'tasks/get', { taskId });
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never reached the state: last ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ended = (task: Json) => ['completed', 'failed', 'cancelled'].includes(task.status);
const runningIn = (task: Json) => /running in (\d+)/.exec(task.statusMessage ?? '')?.[1];

describe.each(HTTP_ADAPTERS)('tasks on BullMQ, web instances and workers in processes of their own (%s)', (adapter) => {
  const prefix = testKeyPrefix();
  const env = {
    REDIS_URL: MACHINE_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    MCP_TASK_STALLED_MS: '1000',
    MCP_ADAPTER: adapter,
  };
  const redis = new Redis(MACHINE_REDIS_URL);
  const started: Started[] = [];
  let webA: Started;
  let webB: Started;
  const workers = new Map<number, Started>();

  const addWorker = async () => {
    const worker = await start('worker', env);
    started.push(worker);
    workers.set(worker.pid, worker);
  };

  /** Creates a task on `url` and waits until a worker runs it; resolves with its id and the worker's pid. */
  const running = async (url: string, tool: string, steps: number) => {
    const created = await call(url, 'tools/call', { name: tool, arguments: { steps } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const task = await pollUntil(webB.url!, created.taskId, (seen) => runningIn(seen) !== undefined || ended(seen));
    return { taskId: created.taskId as string, pid: Number(runningIn(task)) };
  };

  beforeAll(async () => {
    [webA, webB] = await Promise.all([start('web', env), start('web', env)]);
    started.push(webA, webB);
    await Promise.all([addWorker(), addWorker()]);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(started.map((process) => kill(process, 'SIGTERM')));
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('runs the tasks in the worker processes, never in the web instances, spread over several workers', async () => {
    const created = await Promise.all(
      Array.from({ length: 4 }, () => call(webA.url!, 'tools/call', { name: 'work', arguments: { steps: 10 } })),
    );
    const done = await Promise.all(created.map((task) => pollUntil(webB.url!, task.taskId, ended)));
    const pids = done.map((task) => {
      expect(task.status).toBe('completed');
      return Number(/done in (\d+)/.exec(task.result.content[0].text)![1]);
    });
    for (const pid of pids) expect(workers.has(pid)).toBe(true);
    // Each worker takes one job at a time (concurrency 1), so four of a second each cannot all go to one.
    expect(new Set(pids).size).toBeGreaterThan(1);
  });

  it('ends a task failed, saying its worker was lost, when the worker is killed and the tool declares no retry', async () => {
    const { taskId, pid } = await running(webA.url!, 'work', 600);
    await kill(workers.get(pid)!);
    workers.delete(pid);
    await addWorker();
    const task = await pollUntil(webB.url!, taskId, ended);
    expect(task).toMatchObject({ status: 'failed', statusMessage: WORKER_LOST, error: { message: WORKER_LOST } });
  });

  it('runs the task again on another worker when the worker is killed and the tool declares retry', async () => {
    const { taskId, pid } = await running(webA.url!, 'idempotent_work', 30);
    await kill(workers.get(pid)!);
    workers.delete(pid);
    await addWorker();
    const task = await pollUntil(webB.url!, taskId, ended);
    expect(task.status).toBe('completed');
    const finisher = Number(/done in (\d+)/.exec(task.result.content[0].text)![1]);
    expect(finisher).not.toBe(pid);
    expect(workers.has(finisher)).toBe(true);
  });

  it('loses nothing when the web instance that created a task is killed', async () => {
    const webC = await start('web', env);
    started.push(webC);
    const created = await call(webC.url!, 'tools/call', { name: 'work', arguments: { steps: 10 } });
    await kill(webC);
    const task = await pollUntil(webB.url!, created.taskId, ended);
    expect(task.status).toBe('completed');
    expect(task.result.content[0].text).toMatch(/^done in \d+$/);
  });

  it('stops a running job on tasks/cancel: its ctx.signal fires on the worker and the task reads cancelled', async () => {
    const { taskId, pid } = await running(webA.url!, 'work', 600);
    await call(webB.url!, 'tasks/cancel', { taskId });
    const deadline = Date.now() + 120_000;
    let aborted: string | null = null;
    while (aborted === null && Date.now() < deadline) {
      aborted = await redis.get(`${prefix}aborted:${taskId}`);
      if (aborted === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(aborted).toBe(String(pid));
    expect((await call(webA.url!, 'tasks/get', { taskId })).status).toBe('cancelled');
  });

  it('runs an input round inside a queued task as a new execution with the answers given through tasks/update', async () => {
    const created = await call(webA.url!, 'tools/call', { name: 'greet_asked', arguments: {} }, ASK_ANSWERS);
    const asking = await pollUntil(webB.url!, created.taskId, (task) => task.status !== 'working');
    expect(asking.status).toBe('input_required');
    expect(Object.keys(asking.inputRequests)).toEqual(['name']);
    const answer = { action: 'accept', content: { name: 'Ada' } };
    await call(webB.url!, 'tasks/update', { taskId: created.taskId, inputResponses: { name: answer } }, ASK_ANSWERS);
    const task = await pollUntil(webA.url!, created.taskId, ended);
    expect(task.status).toBe('completed');
    expect(task.result.content[0].text).toMatch(/^Hello, Ada \(from \d+\)$/);
    // No process waited on the question: the round with the answer ran the handler again.
    expect(await redis.get(`${prefix}runs:${created.taskId}`)).toBe('2');
  });
});
