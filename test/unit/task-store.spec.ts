import { jest } from '@jest/globals';
import { InMemoryTaskStore } from '../../src/server/tasks/task-store.js';
import { LIMITS, task, taskStoreContract } from '../support/task-store.contract.js';

// One store in one process: both instances of the contract are the same object.
taskStoreContract('InMemoryTaskStore', async (now) => {
  const store = new InMemoryTaskStore(now);
  return { instance: async () => store, close: async () => undefined };
});

describe('InMemoryTaskStore', () => {
  let clock: number;
  let store: InMemoryTaskStore;

  beforeEach(() => {
    clock = 1_000;
    store = new InMemoryTaskStore(() => clock);
  });

  it('holds nothing of a task it has forgotten', async () => {
    await store.create(task('t1', { ttlMs: 500 }), LIMITS);
    clock = 1_500;
    expect(await store.get('srv', 't1', 'alice')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('sweeps expired tasks when a limit is reached, so they hold no memory either', async () => {
    const limits = { perOwner: 2, total: 10 };
    await store.create(task('long', { ttlMs: 10_000 }), limits);
    await store.create(task('short', { ttlMs: 100 }), limits);
    clock = 1_100;
    expect(await store.create(task('third', { createdAt: clock }), limits)).toBe('created');
    expect(store.size).toBe(2);
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

  it('delivers a signal to every subscriber even when one of them throws, and logs the throw', async () => {
    const logged: Array<[string, unknown]> = [];
    const logging = new InMemoryTaskStore(Date.now, {
      error: (message, error) => logged.push([message, error]),
      warn: () => undefined,
    });
    const seen: string[] = [];
    await logging.subscribe('srv', 't1', () => {
      throw new Error('listener broke');
    });
    await logging.subscribe('srv', 't1', (s) => seen.push(s.type));
    await expect(logging.signal('srv', 't1', { type: 'cancel' })).resolves.toBeUndefined();
    expect(seen).toEqual(['cancel']);
    expect(logged).toEqual([['MCP task store: a signal listener of task t1 threw', expect.any(Error)]]);
  });
});
