import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { mcpMessage } from '../../src/testing/index.js';
import { FleetInstance, listenOn, postTo, readUntil, startFleetInstance, until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';

// Real Redis servers, started, killed and restarted, on a machine shared with other work.
jest.setTimeout(30_000);

const CAPS = { clientCapabilities: { elicitation: {} } };
const confirm = { confirm: { action: 'accept', content: { ok: true } } };

describe('nestjs-mcp/redis: several instances behave as one server', () => {
  const keyPrefix = testKeyPrefix();
  let a: FleetInstance;
  let b: FleetInstance;
  let c: FleetInstance;
  let inspector: Redis;

  beforeAll(async () => {
    [a, b, c] = await Promise.all([0, 1, 2].map(() => startFleetInstance({ url: MACHINE_REDIS_URL, keyPrefix })));
    inspector = new Redis(MACHINE_REDIS_URL);
    await until(
      () => [a, b, c].every((i) => i.backends.listen.eventBus.listening),
      'every instance listens on the channel',
    );
  });

  afterAll(async () => {
    await Promise.all([a, b, c].map((i) => i?.close()));
    const keys = await inspector.keys(`${keyPrefix}*`);
    if (keys.length > 0) await inspector.del(...keys);
    inspector.disconnect();
  });

  it('delivers each change made on B to a listen stream on A, in order, exactly once', async () => {
    const onA = await listenOn(a, ['test://1', 'test://2', 'test://3', 'test://end']);
    const onB = await listenOn(b, ['test://1', 'test://2', 'test://3', 'test://end']);
    expect((await onA.next()).method).toBe('notifications/subscriptions/acknowledged');
    expect((await onB.next()).method).toBe('notifications/subscriptions/acknowledged');

    b.server.notifyResourceUpdated('test://1');
    b.server.notifyResourceUpdated('test://2');
    b.server.addTool({
      name: 'late',
      description: 'Added on B',
      inputSchema: { type: 'object' },
      handler: () => 'late',
    });
    b.server.notifyResourceUpdated('test://3');
    b.server.notifyResourceUpdated('test://end');

    const expected = [
      'notifications/resources/updated test://1',
      'notifications/resources/updated test://2',
      'notifications/tools/list_changed',
      'notifications/resources/updated test://3',
      'notifications/resources/updated test://end',
    ];
    // A duplicate would show up before the last event, since one channel keeps its order.
    expect(await readUntil(onA, 'test://end')).toEqual(expected);
    // B's own stream gets B's changes once too: at once from B, never again as the echo from Redis.
    expect(await readUntil(onB, 'test://end')).toEqual(expected);
    onA.close();
    onB.close();
  });

  it('delivers changes made on A and on C to a stream on B, each instance in its own order', async () => {
    const onB = await listenOn(b, ['test://a1', 'test://a2', 'test://c1', 'test://end-a', 'test://end-c']);
    await onB.next();
    a.server.notifyResourceUpdated('test://a1');
    c.server.notifyResourceUpdated('test://c1');
    a.server.notifyResourceUpdated('test://a2');
    a.server.notifyResourceUpdated('test://end-a');
    c.server.notifyResourceUpdated('test://end-c');
    const seen: string[] = [];
    while (!(seen.includes('test://end-a') && seen.includes('test://end-c'))) {
      seen.push(((await onB.next()).params as { uri: string }).uri);
    }
    expect(seen.filter((uri) => uri.startsWith('test://a') || uri === 'test://end-a')).toEqual([
      'test://a1',
      'test://a2',
      'test://end-a',
    ]);
    expect(seen.filter((uri) => uri.startsWith('test://c') || uri === 'test://end-c')).toEqual([
      'test://c1',
      'test://end-c',
    ]);
    expect(seen).toHaveLength(5);
    onB.close();
  });

  it('refuses a consumed single-use request state on every instance', async () => {
    const first = await postTo(a, mcpMessage('tools/call', { name: 'transfer', arguments: {} }, CAPS));
    expect(first.body.result.resultType).toBe('input_required');
    const retry = mcpMessage(
      'tools/call',
      { name: 'transfer', arguments: {}, inputResponses: confirm, requestState: first.body.result.requestState },
      CAPS,
    );

    const done = await postTo(b, retry);
    expect(done.body.result.content).toEqual([{ type: 'text', text: 'transferred' }]);
    for (const instance of [a, b, c]) {
      const replay = await postTo(instance, retry);
      expect(replay.status).toBe(400);
      expect(replay.body.error).toMatchObject({
        code: -32602,
        message: 'requestState has already been used',
        data: { reason: 'request_state_replayed' },
      });
    }
  });

  it('lets exactly one of several concurrent retries of one state through', async () => {
    const first = await postTo(a, mcpMessage('tools/call', { name: 'transfer', arguments: {} }, CAPS));
    const retry = mcpMessage(
      'tools/call',
      { name: 'transfer', arguments: {}, inputResponses: confirm, requestState: first.body.result.requestState },
      CAPS,
    );
    const answers = await Promise.all([a, b, c, a, b, c].map((instance) => postTo(instance, retry)));
    expect(answers.filter((answer) => answer.body.result?.content?.[0]?.text === 'transferred')).toHaveLength(1);
    expect(answers.filter((answer) => answer.body.error?.data?.reason === 'request_state_replayed')).toHaveLength(5);
  });

  it('puts a TTL on every key it writes', async () => {
    const keys = await inspector.keys(`${keyPrefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttl = await inspector.pttl(key);
      // -1 would be a key without expiry; the state's own TTL (10 minutes) plus the clock margin bounds it.
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(11 * 60_000);
    }
  });

  it('ignores anything on the channel that is not an event it published', async () => {
    const onA = await listenOn(a, ['test://after-junk']);
    await onA.next();
    const channel = `${keyPrefix}events`;
    await inspector.publish(channel, 'not json');
    await inspector.publish(channel, JSON.stringify({ o: 'someone', e: { type: 'resources/updated' } }));
    await inspector.publish(channel, JSON.stringify({ o: 'someone', e: { type: 'tools/call' } }));
    await inspector.publish(
      channel,
      JSON.stringify({ o: 'someone', e: { type: 'resources/updated', uri: 'test://after-junk' } }),
    );
    expect(await readUntil(onA, 'test://after-junk')).toEqual(['notifications/resources/updated test://after-junk']);
    onA.close();
  });
});
