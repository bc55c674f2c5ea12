import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { Redis } from 'ioredis';
import { mcpMessage } from '../../src/testing/index.js';
import { FleetInstance, listenOn, postTo, readUntil, startFleetInstance, until } from '../support/redis-fleet.js';
import { RedisServerProcess, testKeyPrefix } from '../support/redis-server.js';

// Real Redis servers, started, killed and restarted, on a machine shared with other work.
jest.setTimeout(30_000);

const CAPS = { clientCapabilities: { elicitation: {} } };
const confirm = { confirm: { action: 'accept', content: { ok: true } } };

const add = mcpMessage('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });

/** A first round of `transfer` (needs no Redis) and the retry that consumes its state (needs Redis). */
async function transferRetry(instance: FleetInstance): Promise<Record<string, unknown>> {
  const first = await postTo(instance, mcpMessage('tools/call', { name: 'transfer', arguments: {} }, CAPS));
  expect(first.body.result.resultType).toBe('input_required');
  return mcpMessage(
    'tools/call',
    { name: 'transfer', arguments: {}, inputResponses: confirm, requestState: first.body.result.requestState },
    CAPS,
  );
}

function expectRedisUnavailable(answer: { status: number; body: Record<string, any> }, reason: RegExp): void {
  expect(answer.status).toBe(200);
  expect(answer.body.error.code).toBe(-32603);
  expect(answer.body.error.message).toMatch(/^Redis is unavailable \(consume a single-use request state\): /);
  expect(answer.body.error.message).toMatch(reason);
}

describe('nestjs-mcp/redis when Redis fails', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  const instances: FleetInstance[] = [];
  let redis: RedisServerProcess;

  const start = async (
    options: { commandTimeoutMs?: number; maxPendingCommands?: number } = {},
    keyPrefix = testKeyPrefix(),
  ) => {
    const instance = await startFleetInstance({ url: redis.url, keyPrefix, ...options });
    instances.push(instance);
    return instance;
  };

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    redis = await RedisServerProcess.onFreePort();
  });

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await redis.kill();
    process.off('unhandledRejection', onUnhandled);
  });

  afterEach(() => {
    // Never an unhandled rejection, whatever Redis did.
    expect(unhandled).toEqual([]);
  });

  it('starts while Redis is unreachable, serves what needs no Redis, refuses what does, and recovers when Redis starts', async () => {
    const keyPrefix = testKeyPrefix();
    const a = await start({}, keyPrefix);

    expect((await postTo(a, add)).body.result.content).toEqual([{ type: 'text', text: '5' }]);
    const retry = await transferRetry(a);
    expectRedisUnavailable(await postTo(a, retry), /the connection is (connecting|reconnecting|connect)/);
    const stream = await listenOn(a, ['test://from-b']);
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged');

    const started = Date.now();
    await redis.start();
    await until(() => a.connections.ready && a.backends.listen.eventBus.listening, 'A is connected and subscribed');
    console.log(`recovery after Redis started: ${Date.now() - started} ms until A was connected and subscribed`);

    const b = await start({}, keyPrefix);
    await until(() => b.backends.listen.eventBus.listening, 'B is subscribed');
    b.server.notifyResourceUpdated('test://from-b');
    const told = await readUntil(stream, 'test://from-b');
    expect(told.at(-1)).toBe('notifications/resources/updated test://from-b');
    // B's tools, registered while it was still connecting, reach A's stream too: held until B was connected.
    expect(new Set(told.slice(0, -1))).toEqual(new Set(['notifications/tools/list_changed']));
    // The state was never consumed (the failed attempt wrote nothing), so the retry now goes through, once.
    expect((await postTo(a, retry)).body.result.content).toEqual([{ type: 'text', text: 'transferred' }]);
    expect((await postTo(b, retry)).body.error.data.reason).toBe('request_state_replayed');
    stream.close();
  });

  it('keeps serving through a Redis crash, queues nothing meanwhile, and resumes listen streams after a restart', async () => {
    const keyPrefix = testKeyPrefix();
    const [a, b] = [await start({}, keyPrefix), await start({}, keyPrefix)];
    await until(
      () => a.backends.listen.eventBus.listening && b.backends.listen.eventBus.listening,
      'A and B are subscribed',
    );
    const stream = await listenOn(a, ['test://during', 'test://after']);
    await stream.next();

    await redis.kill();
    await until(() => !a.connections.ready && !b.connections.ready, 'both instances saw the crash');

    expect((await postTo(a, add)).body.result.content).toEqual([{ type: 'text', text: '5' }]);
    const retry = await transferRetry(a);
    expectRedisUnavailable(await postTo(b, retry), /the connection is/);
    // A change made during the outage reaches B's own streams only; publishing it neither throws nor rejects.
    b.server.notifyResourceUpdated('test://during');
    // Many calls during the outage: every one refused at once, none left waiting in a queue.
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => a.server.handleRequest({ ...retry, id: i })),
    );
    // Refused for the outage (-32603), or, past the concurrent-call cap, told to come back later (-32023).
    const codes = new Set(answers.map((answer) => (answer as { error?: { code: number } }).error?.code));
    expect([...codes].filter((code) => code !== -32603 && code !== -32023)).toEqual([]);
    expect(codes.has(-32603)).toBe(true);
    expect(a.connections.pendingCommands).toBe(0);
    expect((a.connections.commands as Redis).commandQueue.length).toBe(0);

    const restarted = Date.now();
    await redis.start();
    await until(
      () => a.backends.listen.eventBus.listening && b.backends.listen.eventBus.listening,
      'A and B are subscribed again',
    );
    console.log(
      `recovery after a Redis restart: ${Date.now() - restarted} ms until both instances were subscribed again`,
    );

    b.server.notifyResourceUpdated('test://after');
    // The stream lived through the outage; it is told the lists may have changed meanwhile (the change made
    // during the outage is lost with Redis' pub/sub), then gets the next change from B.
    expect(await readUntil(stream, 'test://after')).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/updated test://after',
    ]);
    expect((await postTo(b, retry)).body.result.content).toEqual([{ type: 'text', text: 'transferred' }]);
    stream.close();
  });

  it('bounds the wait on a Redis that hangs, and the number of commands left waiting on it', async () => {
    const a = await start({ commandTimeoutMs: 300, maxPendingCommands: 3 });
    await until(() => a.connections.ready, 'A is connected');
    const retry = await transferRetry(a);

    redis.pause();
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => a.server.handleRequest({ ...retry, id: i })),
      );
      const messages = answers.map((answer) => (answer as { error: { code: number; message: string } }).error);
      expect(messages.every((error) => error.code === -32603)).toBe(true);
      expect(messages.filter((error) => /no answer within 300 ms$/.test(error.message))).toHaveLength(3);
      expect(messages.filter((error) => /3 commands still wait for an answer$/.test(error.message))).toHaveLength(7);
      // The three unanswered commands still count while Redis holds them, so a hung Redis cannot fill memory.
      expectRedisUnavailable(await postTo(a, retry), /3 commands still wait for an answer$/);
    } finally {
      redis.resume();
    }
    await until(() => a.connections.pendingCommands === 0, 'the held commands are answered');
    // One of the held commands consumed the state once Redis woke up, so this retry is a replay.
    expect((await postTo(a, retry)).body.error.data.reason).toBe('request_state_replayed');
    const fresh = await transferRetry(a);
    expect((await postTo(a, fresh)).body.result.content).toEqual([{ type: 'text', text: 'transferred' }]);
  });
});
