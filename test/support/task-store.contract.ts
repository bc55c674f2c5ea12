import { jest } from '@jest/globals';
import { INSTANCE_LOST, type StoredTask, type TaskSignal, type TaskStore } from '../../src/server/tasks/task-store.js';

export const LIMITS = { perOwner: 10, total: 100 };

/** A task of `alice`'s, created at 1,000 on the test's clock, for 60 s. */
export function task(taskId: string, overrides: Partial<StoredTask> = {}): StoredTask {
  return {
    taskId,
    server: 'srv',
    owner: 'alice',
    createdAt: 1_000,
    lastUpdatedAt: 1_000,
    ttlMs: 60_000,
    status: 'working',
    ...overrides,
  };
}

/** A backend under test: `instance` opens one more instance's store over the same tasks, on the given clock. */
export interface TaskStoreBackend {
  instance(): Promise<TaskStore>;
  close(): Promise<void>;
}

/** Waits for something another instance makes true; signals may travel through a backend asynchronously. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The behaviour every TaskStore must have, as a suite any implementation runs against itself (the in-memory
 * default in the unit tests, Redis in its e2e spec). `open` builds a fresh backend reading time from `now`;
 * each case takes two instances, `a` and `b`, which for a one-process store may be the same object, so what
 * is shown holds across instances of a shared store.
 */
export function taskStoreContract(name: string, open: (now: () => number) => Promise<TaskStoreBackend>): void {
  describe(`${name} (TaskStore contract)`, () => {
    let clock: number;
    let backend: TaskStoreBackend;
    let a: TaskStore;
    let b: TaskStore;

    beforeEach(async () => {
      clock = 1_000;
      backend = await open(() => clock);
      [a, b] = [await backend.instance(), await backend.instance()];
    });

    afterEach(() => backend.close());

    it('finds a created task at once, on any instance, for its owner only', async () => {
      expect(await a.create(task('t1'), LIMITS)).toBe('created');
      expect(await b.get('srv', 't1', 'alice')).toMatchObject({ taskId: 't1', status: 'working', owner: 'alice' });
      expect(await b.get('srv', 't1', 'mallory')).toBeUndefined();
      expect(await b.get('srv', 't2', 'alice')).toBeUndefined();
    });

    it('hands out copies: changing what get returned does not change the stored task', async () => {
      await a.create(task('t1'), LIMITS);
      const copy = (await a.get('srv', 't1', 'alice'))!;
      copy.status = 'completed';
      expect((await a.get('srv', 't1', 'alice'))!.status).toBe('working');
    });

    it('forgets a task once createdAt + ttlMs has passed, and never before', async () => {
      await a.create(task('t1', { ttlMs: 500 }), LIMITS);
      clock = 1_499;
      expect(await b.get('srv', 't1', 'alice')).toBeDefined();
      clock = 1_500;
      expect(await b.get('srv', 't1', 'alice')).toBeUndefined();
      expect(await b.update('srv', 't1', (t) => ({ ...t, status: 'completed' }))).toBeUndefined();
    });

    // A store may cap a null ttlMs (Redis keeps such a task `maxTtlMs`, a day by default), but not to an hour.
    it('keeps a task with a null ttlMs an hour on', async () => {
      await a.create(task('t1', { ttlMs: null }), LIMITS);
      clock = 1_000 + 3_600_000;
      expect(await b.get('srv', 't1', 'alice')).toBeDefined();
    });

    it('applies an update and returns the stored record, which every instance then reads', async () => {
      await a.create(task('t1'), LIMITS);
      const updated = await b.update('srv', 't1', (t) => ({
        ...t,
        status: 'input_required',
        inputRequests: { a: { method: 'roots/list', params: {} } },
      }));
      expect(updated).toMatchObject({ status: 'input_required', inputRequests: { a: { method: 'roots/list' } } });
      expect(await a.get('srv', 't1', 'alice')).toEqual(updated);
    });

    it('leaves a task as it is when the change declines', async () => {
      await a.create(task('t1'), LIMITS);
      expect(await b.update('srv', 't1', () => undefined)).toBeUndefined();
      expect((await a.get('srv', 't1', 'alice'))!.status).toBe('working');
    });

    it.each(['completed', 'failed', 'cancelled'] as const)('never changes a task once it is %s', async (status) => {
      await a.create(task('t1'), LIMITS);
      await a.update('srv', 't1', (t) => ({ ...t, status }));
      const change = jest.fn((t: StoredTask) => ({ ...t, status: 'working' as const }));
      expect(await b.update('srv', 't1', change)).toBeUndefined();
      expect(change).not.toHaveBeenCalled();
      expect((await b.get('srv', 't1', 'alice'))!.status).toBe(status);
    });

    it('keeps the identity fields whatever the change returns', async () => {
      await a.create(task('t1'), LIMITS);
      const updated = await b.update('srv', 't1', (t) => ({
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
      expect(await a.get('srv', 't1', 'mallory')).toBeUndefined();
    });

    it('loses no update when two instances change one task at the same time', async () => {
      await a.create(task('counter', { statusMessage: '0' }), LIMITS);
      const bump = (t: StoredTask) => ({ ...t, statusMessage: String(Number(t.statusMessage) + 1) });
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).update('srv', 'counter', bump)));
      expect((await a.get('srv', 'counter', 'alice'))!.statusMessage).toBe('10');
    });

    it('refuses a create past the per-owner limit, while other owners may still create', async () => {
      const limits = { perOwner: 2, total: 10 };
      expect(await a.create(task('a1'), limits)).toBe('created');
      expect(await b.create(task('a2'), limits)).toBe('created');
      expect(await a.create(task('a3'), limits)).toBe('owner-limit');
      expect(await b.create(task('b1', { owner: 'bob' }), limits)).toBe('created');
      expect(await b.get('srv', 'a3', 'alice')).toBeUndefined();
    });

    it('refuses a create whose call passes the owner’s byte share, counts results with calls, and frees a call that ends', async () => {
      const limits = { perOwner: 10, total: 10, bytesPerOwner: 100 };
      expect(await a.create(task('a1', { callBytes: 60 }), limits)).toBe('created');
      expect(await b.create(task('a2', { callBytes: 50 }), limits)).toBe('owner-bytes-limit');
      expect(await b.get('srv', 'a2', 'alice')).toBeUndefined();
      expect(await b.create(task('b1', { owner: 'bob', callBytes: 50 }), limits)).toBe('created');
      expect(await a.create(task('plain'), limits)).toBe('created');
      // Ending a1 drops its call and keeps a result of 30 bytes in its place: 70 bytes are free again.
      const end = (t: StoredTask) => ({ ...t, status: 'completed' as const, callBytes: undefined, resultBytes: 30 });
      await b.update('srv', 'a1', end, 100);
      expect(await a.create(task('a3', { callBytes: 70 }), limits)).toBe('created');
      expect(await b.create(task('a4', { callBytes: 1 }), limits)).toBe('owner-bytes-limit');
      await expect(a.update('srv', 'plain', (t) => ({ ...t, resultBytes: 1 }), 100)).rejects.toThrow(
        'Task results full',
      );
    });

    it('frees the bytes of expired tasks for the share, exactly, however many expired at once', async () => {
      const limits = { perOwner: 100, total: 100, bytesPerOwner: 100 };
      expect(await a.create(task('long', { callBytes: 20 }), limits)).toBe('created');
      for (let i = 0; i < 20; i++)
        expect(await (i % 2 ? a : b).create(task(`short${i}`, { ttlMs: 100, callBytes: 4 }), limits)).toBe('created');
      expect(await b.create(task('over', { callBytes: 1 }), limits)).toBe('owner-bytes-limit');
      clock = 1_100;
      expect(await a.create(task('fits', { createdAt: clock, callBytes: 80 }), limits)).toBe('created');
      expect(await b.create(task('over', { createdAt: clock, callBytes: 1 }), limits)).toBe('owner-bytes-limit');
      clock = 61_000;
      expect(await b.create(task('after', { createdAt: clock, callBytes: 20 }), limits)).toBe('created');
      expect(await a.create(task('over', { createdAt: clock, callBytes: 1 }), limits)).toBe('owner-bytes-limit');
    });

    it('holds the byte share when two instances create at the same time', async () => {
      const limits = { perOwner: 100, total: 100, bytesPerOwner: 100 };
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).create(task(`t${i}`, { callBytes: 10 }), limits)),
      );
      expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(10);
      expect(outcomes.filter((outcome) => outcome === 'owner-bytes-limit')).toHaveLength(10);
    });

    it('refuses a create past the total limit, whoever asks', async () => {
      const limits = { perOwner: 10, total: 2 };
      await a.create(task('a1'), limits);
      await b.create(task('b1', { owner: 'bob' }), limits);
      expect(await a.create(task('c1', { owner: 'carol' }), limits)).toBe('total-limit');
    });

    it('does not count expired tasks against the limits, whatever their order', async () => {
      const limits = { perOwner: 2, total: 10 };
      await a.create(task('long', { ttlMs: 10_000 }), limits);
      await b.create(task('short', { ttlMs: 100 }), limits);
      expect(await a.create(task('third'), limits)).toBe('owner-limit');
      clock = 1_100;
      expect(await b.create(task('third', { createdAt: clock }), limits)).toBe('created');
      expect(await a.get('srv', 'long', 'alice')).toBeDefined();
    });

    it('delivers signals sent on any instance to the task’s subscribers until they unsubscribe', async () => {
      await a.create(task('t1'), LIMITS);
      const seen: TaskSignal[] = [];
      const other: TaskSignal[] = [];
      const unsubscribe = await a.subscribe('srv', 't1', (s) => seen.push(s));
      await a.subscribe('srv', 't2', (s) => other.push(s));
      const input: TaskSignal = { type: 'input', responses: { a: { action: 'accept', content: { ok: true } } } };
      await b.signal('srv', 't1', input);
      await b.signal('srv', 't1', { type: 'cancel' });
      await eventually(() => seen.length === 2, 'both signals arrived');
      await unsubscribe();
      await b.signal('srv', 't1', { type: 'cancel' });
      // A signal to t2, sent after, arrives after the one to t1 would have: t1's subscriber has heard its last.
      await b.signal('srv', 't2', { type: 'cancel' });
      await eventually(() => other.length === 1, 'the signal for t2 arrived');
      expect(seen).toEqual([input, { type: 'cancel' }]);
      expect(other).toEqual([{ type: 'cancel' }]);
    });

    describe('leases', () => {
      const lost = {
        status: 'failed',
        statusMessage: INSTANCE_LOST,
        error: { code: -32603, message: INSTANCE_LOST },
        lastUpdatedAt: 2_000,
      };

      it('fails a running task once its lease has lapsed, on every instance, and stores it failed', async () => {
        await a.create(task('t1', { leaseExpiresAt: 2_000 }), LIMITS);
        clock = 1_999;
        expect((await b.get('srv', 't1', 'alice'))!.status).toBe('working');
        clock = 2_000;
        expect(await b.get('srv', 't1', 'alice')).toMatchObject(lost);
        // Stored, not only shown: a reader whose clock is behind the lapse sees it failed too.
        clock = 1_500;
        expect(await a.get('srv', 't1', 'alice')).toMatchObject(lost);
        expect((await a.get('srv', 't1', 'alice'))!.leaseExpiresAt).toBeUndefined();
      });

      it('fails a task waiting on input just the same, dropping its requests', async () => {
        const inputRequests = { a: { method: 'roots/list' as const, params: {} } };
        await a.create(task('t1', { status: 'input_required', inputRequests, leaseExpiresAt: 2_000 }), LIMITS);
        clock = 2_500;
        const failed = await b.get('srv', 't1', 'alice');
        expect(failed).toMatchObject(lost);
        expect(failed!.inputRequests).toBeUndefined();
      });

      it('keeps a task running for as long as its lease is renewed', async () => {
        await a.create(task('t1', { leaseExpiresAt: 2_000 }), LIMITS);
        for (clock = 1_500; clock < 10_000; clock += 500) {
          const renewed = await a.update('srv', 't1', (t) => ({ ...t, leaseExpiresAt: clock + 1_000 }));
          expect(renewed?.status).toBe('working');
          expect((await b.get('srv', 't1', 'alice'))!.status).toBe('working');
        }
      });

      it('lets nothing written after the lapse change the failed task: no renewal, no late result', async () => {
        await a.create(task('t1', { leaseExpiresAt: 2_000 }), LIMITS);
        clock = 2_000;
        // No read noticed the lapse first: the late writes themselves find it and store the failure.
        const late = jest.fn((t: StoredTask) => ({ ...t, status: 'completed' as const, result: { content: [] } }));
        expect(await a.update('srv', 't1', late)).toBeUndefined();
        expect(late).not.toHaveBeenCalled();
        expect(await a.update('srv', 't1', (t) => ({ ...t, leaseExpiresAt: 5_000 }))).toBeUndefined();
        clock = 1_500;
        expect(await b.get('srv', 't1', 'alice')).toMatchObject(lost);
      });

      it('never fails a task that ended, nor one without a lease', async () => {
        await a.create(task('done', { leaseExpiresAt: 2_000 }), LIMITS);
        await a.update('srv', 'done', (t) => ({ ...t, status: 'completed', result: { content: [] } }));
        await a.create(task('free'), LIMITS);
        clock = 50_000;
        expect((await b.get('srv', 'done', 'alice'))!.status).toBe('completed');
        expect((await b.get('srv', 'free', 'alice'))!.status).toBe('working');
      });

      it('shows a lapsed task to nobody but its owner', async () => {
        await a.create(task('t1', { leaseExpiresAt: 2_000 }), LIMITS);
        clock = 3_000;
        expect(await b.get('srv', 't1', 'mallory')).toBeUndefined();
        expect(await b.get('other', 't1', 'alice')).toBeUndefined();
      });
    });

    it('resolves a signal nobody listens to', async () => {
      await expect(b.signal('srv', 'nobody', { type: 'cancel' })).resolves.toBeUndefined();
    });
  });
}
