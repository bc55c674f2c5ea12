import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { mcpMessage } from '../../src/testing/index.js';
import { FleetInstance, postTo, startFleetInstance, until } from '../support/redis-fleet.js';
import { MACHINE_REDIS_URL, testKeyPrefix } from '../support/redis-server.js';
import { LiveResponse } from '../support/sse-client.js';

jest.setTimeout(30_000);

describe('nestjs-mcp/redis: event occurrences in Redis Streams, served by every instance', () => {
  const keyPrefix = testKeyPrefix();
  let a: FleetInstance;
  let b: FleetInstance;
  let inspector: Redis;

  beforeAll(async () => {
    [a, b] = await Promise.all([0, 1].map(() => startFleetInstance({ url: MACHINE_REDIS_URL, keyPrefix })));
    for (const instance of [a, b])
      instance.server.addEvent({ name: 'build.finished', description: 'A build ended', retention: { maxCount: 2 } });
    inspector = new Redis(MACHINE_REDIS_URL);
    await until(() => [a, b].every((i) => i.connections.commands.status === 'ready'), 'both instances reach Redis');
  });
  afterAll(async () => {
    await Promise.all([a, b].map((i) => i?.close()));
    const keys = await inspector.keys(`${keyPrefix}*`);
    if (keys.length > 0) await inspector.del(...keys);
    inspector.disconnect();
  });

  const poll = async (instance: FleetInstance, params: Record<string, unknown>) =>
    (await postTo(instance, mcpMessage('events/poll', { name: 'build.finished', ...params }))).body;

  it('resumes on B a cursor A issued, with what A published', async () => {
    const first = await poll(a, { cursor: null });
    const start = first.result;
    expect(first.error).toBeUndefined();
    expect(start).toMatchObject({ events: [], truncated: false });
    await a.server.publishEvent('build.finished', { n: 1 });
    const onB = (await poll(b, { cursor: start.cursor })).result;
    expect(onB.events).toEqual([
      { eventId: expect.any(String), name: 'build.finished', timestamp: expect.any(String), data: { n: 1 } },
    ]);
    expect(onB).toMatchObject({ truncated: false, hasMore: false });
    const quiet = (await poll(a, { cursor: onB.cursor })).result;
    expect(quiet).toMatchObject({ events: [], cursor: onB.cursor, truncated: false });
  });

  it('keeps the stream to the retention: a cursor that fell behind reads truncated on the other instance', async () => {
    const start = (await poll(b, {})).result;
    for (const n of [2, 3, 4]) await a.server.publishEvent('build.finished', { n });
    const onB = (await poll(b, { cursor: start.cursor })).result;
    expect(onB).toMatchObject({ truncated: true });
    expect(onB.events.map((e: { data: unknown }) => e.data)).toEqual([{ n: 3 }, { n: 4 }]);
    const logs = await inspector.keys(`${keyPrefix}*:log`);
    expect(await inspector.xlen(logs[0])).toBe(2);
  });

  it('caps a poll at maxEvents with hasMore, and refuses a cursor that is no stream id', async () => {
    const start = (await poll(a, {})).result;
    await b.server.publishEvent('build.finished', { n: 5 });
    await b.server.publishEvent('build.finished', { n: 6 });
    const first = (await poll(a, { cursor: start.cursor, maxEvents: 1 })).result;
    expect(first).toMatchObject({ hasMore: true, events: [{ data: { n: 5 } }] });
    const second = (await poll(b, { cursor: first.cursor, maxEvents: 1 })).result;
    expect(second).toMatchObject({ hasMore: false, events: [{ data: { n: 6 } }] });
    expect((await poll(a, { cursor: 'not-an-id' })).error).toMatchObject({ code: -32602, message: 'Invalid cursor' });
    const ahead = (await poll(a, { cursor: '99999999999999-0' })).result;
    expect(ahead).toMatchObject({ events: [], truncated: true, cursor: second.cursor });
  });

  it('streams on B from a cursor of A: the backlog, then what either instance publishes, in order', async () => {
    const start = (await poll(a, {})).result;
    await a.server.publishEvent('build.finished', { n: 7 });
    const live = await LiveResponse.post(
      b.url,
      mcpMessage('events/stream', { name: 'build.finished', cursor: start.cursor }),
    );
    try {
      expect(await live.next()).toMatchObject({ method: 'notifications/events/active', params: { truncated: false } });
      expect(await live.next()).toMatchObject({ method: 'notifications/events/event', params: { data: { n: 7 } } });
      await a.server.publishEvent('build.finished', { n: 8 });
      await b.server.publishEvent('build.finished', { n: 9 });
      expect(await live.next()).toMatchObject({ params: { data: { n: 8 } } });
      expect(await live.next()).toMatchObject({ params: { data: { n: 9 } } });
    } finally {
      live.close();
    }
  });

  it('sends its scripts by digest (EVALSHA), and their text only when Redis lost them', async () => {
    const monitor = await inspector.monitor();
    const seen: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((arg) => arg.startsWith(keyPrefix))) seen.push(args);
    });
    try {
      const start = (await poll(a, {})).result;
      await a.server.publishEvent('build.finished', { n: 10 });
      expect((await poll(b, { cursor: start.cursor })).result.events).toHaveLength(1);
      await until(() => seen.filter(([command]) => command.toLowerCase() === 'evalsha').length >= 2, 'the scripts run');
      const sent = seen.map(([command]) => command.toLowerCase());
      expect(sent).not.toContain('eval');
      // After SCRIPT FLUSH (a restart, a failover), the first call of each script sends its text once more.
      await inspector.script('FLUSH');
      await a.server.publishEvent('build.finished', { n: 11 });
      expect((await poll(b, { cursor: start.cursor })).result.events).toHaveLength(2);
      await until(() => seen.some(([command]) => command.toLowerCase() === 'eval'), 'the script text is sent again');
    } finally {
      monitor.disconnect();
    }
  });
});
