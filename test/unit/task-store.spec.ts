import { jest } from '@jest/globals';
import { InMemoryTaskStore, type StoredTask, type TaskSignal } from '../../src/server/task-store.js';

const LIMITS = { perOwner: 10, total: 100 };

function task(taskId: string, overrides: Partial<StoredTask> = {}): StoredTask {
  return {
    taskId,
    owner: 'alice',
    createdAt: 1_000,
    lastUpdatedAt: 1_000,
    ttlMs: 60_000,
    status: 'working',
    ...overrides,
  };
}

describe('InMemoryTaskStore', () => {
  let clock: number;
  let store: InMemoryTaskStore;

  beforeEach(() => {
    clock = 1_000;
    store = new InMemoryTaskStore(() => clock);
  });

  it('finds a created task at once, for its owner only', async () => {
    expect(await store.create(task('t1'), LIMITS)).toBe('created');
    expect(await store.get('t1', 'alice')).toMatchObject({ taskId: 't1', status: 'working', owner: 'alice' });
    expect(await store.get('t1', 'mallory')).toBeUndefined();
    expect(await store.get('t2', 'alice')).toBeUndefined();
  });

  it('hands out copies: changing what get returned does not change the stored task', async () => {
    await store.create(task('t1'), LIMITS);
    const copy = (await store.get('t1', 'alice'))!;
    copy.status = 'completed';
    expect((await store.get('t1', 'alice'))!.status).toBe('working');
  });

  it('forgets a task once createdAt + ttlMs has passed, and never before', async () => {
    await store.create(task('t1', { ttlMs: 500 }), LIMITS);
    clock = 1_499;
    expect(await store.get('t1', 'alice')).toBeDefined();
    clock = 1_500;
    expect(await store.get('t1', 'alice')).toBeUndefined();
    expect(await store.update('t1', (t) => ({ ...t, status: 'completed' }))).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('keeps a task with a null ttlMs', async () => {
    await store.create(task('t1', { ttlMs: null }), LIMITS);
    clock = Number.MAX_SAFE_INTEGER;
    expect(await store.get('t1', 'alice')).toBeDefined();
  });

  it('drops an expired task on its own timer, so its result does not stay in memory', async () => {
    jest.useFakeTimers();
    try {
      const timed = new InMemoryTaskStore();
      await timed.create(task('t1', { createdAt: Date.now(), ttlMs: 1_000 }), LIMITS);
      jest.advanceTimersByTime(999);
      expect(timed.size).toBe(1);
      jest.advanceTimersByTime(1);
      expect(timed.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('applies an update atomically and returns the stored record', async () => {
    await store.create(task('t1'), LIMITS);
    const updated = await store.update('t1', (t) => ({
      ...t,
      status: 'input_required',
      inputRequests: { a: { method: 'roots/list', params: {} } },
    }));
    expect(updated).toMatchObject({ status: 'input_required', inputRequests: { a: { method: 'roots/list' } } });
    expect(await store.get('t1', 'alice')).toEqual(updated);
  });

  it('leaves a task as it is when the change declines', async () => {
    await store.create(task('t1'), LIMITS);
    expect(await store.update('t1', () => undefined)).toBeUndefined();
    expect((await store.get('t1', 'alice'))!.status).toBe('working');
  });

  it.each(['completed', 'failed', 'cancelled'] as const)('never changes a task once it is %s', async (status) => {
    await store.create(task('t1'), LIMITS);
    await store.update('t1', (t) => ({ ...t, status }));
    const change = jest.fn((t: StoredTask) => ({ ...t, status: 'working' as const }));
    expect(await store.update('t1', change)).toBeUndefined();
    expect(change).not.toHaveBeenCalled();
    expect((await store.get('t1', 'alice'))!.status).toBe(status);
  });

  it('keeps the identity fields whatever the change returns', async () => {
    await store.create(task('t1'), LIMITS);
    const updated = await store.update('t1', (t) => ({
      ...t,
      taskId: 'x',
      owner: 'mallory',
      createdAt: 0,
      ttlMs: null,
      statusMessage: 'half way',
    }));
    expect(updated).toMatchObject({
      taskId: 't1',
      owner: 'alice',
      createdAt: 1_000,
      ttlMs: 60_000,
      statusMessage: 'half way',
    });
    expect(await store.get('t1', 'mallory')).toBeUndefined();
  });

  it('refuses a create past the per-owner limit, while other owners may still create', async () => {
    const limits = { perOwner: 2, total: 10 };
    expect(await store.create(task('a1'), limits)).toBe('created');
    expect(await store.create(task('a2'), limits)).toBe('created');
    expect(await store.create(task('a3'), limits)).toBe('owner-limit');
    expect(await store.create(task('b1', { owner: 'bob' }), limits)).toBe('created');
    expect(await store.get('a3', 'alice')).toBeUndefined();
  });

  it('refuses a create past the total limit, whoever asks', async () => {
    const limits = { perOwner: 10, total: 2 };
    await store.create(task('a1'), limits);
    await store.create(task('b1', { owner: 'bob' }), limits);
    expect(await store.create(task('c1', { owner: 'carol' }), limits)).toBe('total-limit');
  });

  it('does not count expired tasks against the limits, whatever their order', async () => {
    const limits = { perOwner: 2, total: 10 };
    await store.create(task('long', { ttlMs: 10_000 }), limits);
    await store.create(task('short', { ttlMs: 100 }), limits);
    expect(await store.create(task('third'), limits)).toBe('owner-limit');
    clock = 1_100;
    expect(await store.create(task('third', { createdAt: clock }), limits)).toBe('created');
    expect(store.size).toBe(2);
  });

  it('delivers signals to the task’s subscribers until they unsubscribe', async () => {
    await store.create(task('t1'), LIMITS);
    const seen: TaskSignal[] = [];
    const other: TaskSignal[] = [];
    const unsubscribe = await store.subscribe('t1', (s) => seen.push(s));
    await store.subscribe('t2', (s) => other.push(s));
    await store.signal('t1', { type: 'input', responses: { a: { action: 'accept', content: { ok: true } } } });
    await unsubscribe();
    await store.signal('t1', { type: 'cancel' });
    expect(seen).toEqual([{ type: 'input', responses: { a: { action: 'accept', content: { ok: true } } } }]);
    expect(other).toEqual([]);
  });

  it('delivers a signal to every subscriber even when one of them throws, and logs the throw', async () => {
    const logged: Array<[string, unknown]> = [];
    const logging = new InMemoryTaskStore(Date.now, {
      error: (message, error) => logged.push([message, error]),
      warn: () => undefined,
    });
    const seen: string[] = [];
    await logging.subscribe('t1', () => {
      throw new Error('listener broke');
    });
    await logging.subscribe('t1', (s) => seen.push(s.type));
    await expect(logging.signal('t1', { type: 'cancel' })).resolves.toBeUndefined();
    expect(seen).toEqual(['cancel']);
    expect(logged).toEqual([['MCP task store: a signal listener of task t1 threw', expect.any(Error)]]);
  });

  it('resolves a signal nobody listens to', async () => {
    await expect(store.signal('nobody', { type: 'cancel' })).resolves.toBeUndefined();
  });
});
