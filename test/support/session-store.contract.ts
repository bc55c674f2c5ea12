import { randomBytes } from 'node:crypto';
import type { SessionEvent, SessionRecord, SessionStore } from '../../src/server/sessions/session-store.js';

/** What a contract run needs: instances sharing one store (each its own object where that means anything). */
export interface SessionStoreFixture {
  instance(): Promise<SessionStore>;
  close(): Promise<void>;
}

const LIMITS = { maxPerCaller: 2, maxTotal: 3 };

export function session(owner: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: randomBytes(24).toString('base64url'),
    owner,
    protocolVersion: '2025-11-25',
    clientCapabilities: { sampling: {} },
    clientInfo: { name: 'contract', version: '1.0.0' },
    lastActivity: Date.now(),
    idleTimeoutMs: 60_000,
    maxEventBytes: 1024 * 1024,
    maxEvents: 3,
    ...overrides,
  };
}

/** Which of `uris` the session holds, sorted. */
async function held(store: SessionStore, id: string, uris: string[]): Promise<string[]> {
  const flags = await Promise.all(uris.map((uri) => store.subscribed(id, uri)));
  return uris.filter((_, i) => flags[i]).sort();
}

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
};

/** The `SessionStore` contract (src/server/sessions/session-store.ts), for every implementation. */
export function sessionStoreContract(name: string, open: () => Promise<SessionStoreFixture>): void {
  describe(`${name} keeps the SessionStore contract`, () => {
    let fixture: SessionStoreFixture;
    let a: SessionStore;
    let b: SessionStore;

    beforeEach(async () => {
      fixture = await open();
      a = await fixture.instance();
      b = await fixture.instance();
    });
    afterEach(() => fixture.close());

    it('keeps a session made on one instance for every other, and forgets one it never made', async () => {
      const made = session('alice');
      expect(await a.create(made, LIMITS)).toBe('created');
      const read = await b.get(made.id);
      expect(read).toMatchObject({
        id: made.id,
        owner: 'alice',
        protocolVersion: '2025-11-25',
        clientCapabilities: { sampling: {} },
        clientInfo: { name: 'contract', version: '1.0.0' },
      });
      expect(await b.get('no-such-session')).toBeUndefined();
    });

    it('caps live sessions per owner and in all, atomically, and frees a place when one ends', async () => {
      const results = await Promise.all([a, b, a].map((store) => store.create(session('alice'), LIMITS)));
      expect(results.filter((r) => r === 'created')).toHaveLength(2);
      expect(results.filter((r) => r === 'caller-full')).toHaveLength(1);
      const bob = session('bob');
      expect(await b.create(bob, LIMITS)).toBe('created');
      expect(await a.create(session('carol'), LIMITS)).toBe('full');
      expect(await a.delete(bob.id)).toBe(true);
      expect(await a.delete(bob.id)).toBe(false);
      expect(await b.create(session('carol'), LIMITS)).toBe('created');
    });

    it('ends a session after its idle timeout, and every use starts the timeout again', async () => {
      // Margins wide enough for a loaded machine: each use comes well inside the timeout, the last well past it.
      const idle = session('alice', { idleTimeoutMs: 1_500 });
      await a.create(idle, LIMITS);
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(await b.get(idle.id)).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(await a.get(idle.id)).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await b.get(idle.id)).toBeUndefined();
      // Its place is free again.
      await a.create(session('alice'), LIMITS);
      expect(await a.create(session('alice'), LIMITS)).toBe('created');
    });

    it('keeps the newest maxEvents events, replays a stream after a seq in order, and hands live ones to watchers', async () => {
      const made = session('alice');
      await a.create(made, LIMITS);
      const heard: Array<SessionEvent | null> = [];
      b.watch(made.id, 'p1', (event) => heard.push(event));
      for (let seq = 1; seq <= 4; seq++) await a.append(made.id, { id: `p1_${seq}`, data: `{"n":${seq}}` });
      await a.append(made.id, { id: `g2_1`, data: '{"other":true}' });
      expect((await b.replay(made.id, 'p1', 0)).map((e) => e.id)).toEqual(['p1_3', 'p1_4']);
      expect((await b.replay(made.id, 'p1', 3)).map((e) => e.id)).toEqual(['p1_4']);
      expect(await b.replay(made.id, 'g2', 0)).toEqual([{ id: 'g2_1', data: '{"other":true}' }]);
      await until(() => heard.length === 4, 'the watcher heard every event of its stream');
      expect(heard.map((e) => e?.id)).toEqual(['p1_1', 'p1_2', 'p1_3', 'p1_4']);
    });

    it('keeps nothing for a session that is gone', async () => {
      await a.append('no-such-session', { id: 'p1_1', data: '{}' });
      expect(await b.replay('no-such-session', 'p1', 0)).toEqual([]);
      expect(await b.subscribe('no-such-session', 'test://x', 10)).toBe('gone');
      expect(await b.unsubscribe('no-such-session', 'test://x')).toBe(false);
      expect(await b.claimStream('no-such-session', 'get', 'holder', 60_000)).toBe(false);
      expect(await b.renewStream('no-such-session', 'get', 'holder', 60_000)).toBe(false);
    });

    it('ends a session everywhere: deleted on one instance, gone on the other, its watchers told', async () => {
      const made = session('alice');
      await a.create(made, LIMITS);
      let ended = false;
      b.watch(made.id, 'get', (event) => (ended ||= event === null));
      expect(await a.delete(made.id)).toBe(true);
      expect(await b.get(made.id)).toBeUndefined();
      await until(() => ended, 'the watcher on the other instance was told the session ended');
    });

    it('lets one claim of a stream through until its holder releases it', async () => {
      const made = session('alice');
      await a.create(made, LIMITS);
      const claims = await Promise.all([
        a.claimStream(made.id, 'get', 'on-a', 60_000),
        b.claimStream(made.id, 'get', 'on-b', 60_000),
      ]);
      const holder = claims[0] ? 'on-a' : 'on-b';
      expect([...claims].sort()).toEqual([false, true]);
      const other = holder === 'on-a' ? 'on-b' : 'on-a';
      // Only the holder renews or releases it.
      expect(await b.renewStream(made.id, 'get', other, 60_000)).toBe(false);
      await b.releaseStream(made.id, 'get', other);
      expect(await a.claimStream(made.id, 'get', 'third', 60_000)).toBe(false);
      expect(await a.renewStream(made.id, 'get', holder, 60_000)).toBe(true);
      await a.releaseStream(made.id, 'get', holder);
      expect(await b.claimStream(made.id, 'get', 'third', 60_000)).toBe(true);
      // Another stream of the session is claimed apart.
      expect(await a.claimStream(made.id, 'p1', 'fourth', 60_000)).toBe(true);
    });

    it('frees a claim whose holder stops renewing it within the lease, and keeps one that is renewed', async () => {
      const made = session('alice');
      await a.create(made, LIMITS);
      const lease = 600;
      expect(await a.claimStream(made.id, 'get', 'live', lease)).toBe(true);
      // Renewed every third of the lease for three leases: it holds throughout.
      for (let i = 0; i < 9; i++) {
        await new Promise((resolve) => setTimeout(resolve, lease / 3));
        expect(await a.renewStream(made.id, 'get', 'live', lease)).toBe(true);
        expect(await b.claimStream(made.id, 'get', 'other', lease)).toBe(false);
      }
      // Its holder dies (no renewal, no release): the claim is free once the lease has passed.
      await new Promise((resolve) => setTimeout(resolve, lease * 2));
      expect(await b.claimStream(made.id, 'get', 'other', 60_000)).toBe(true);
      // The dead holder cannot take it back, nor drop the new holder's claim.
      expect(await a.renewStream(made.id, 'get', 'live', lease)).toBe(false);
      await a.releaseStream(made.id, 'get', 'live');
      expect(await a.claimStream(made.id, 'get', 'late', 60_000)).toBe(false);
    });

    it('adds and removes subscriptions, and a URI already held is no new one at the cap', async () => {
      const made = session('alice');
      await a.create(made, LIMITS);
      expect(await a.subscribe(made.id, 'test://a', 2)).toBe('subscribed');
      expect(await b.subscribe(made.id, 'test://b', 2)).toBe('subscribed');
      expect(await a.subscribe(made.id, 'test://a', 2)).toBe('subscribed');
      expect(await a.subscribe(made.id, 'test://c', 2)).toBe('full');
      expect(await held(b, made.id, ['test://a', 'test://b', 'test://c'])).toEqual(['test://a', 'test://b']);
      expect(await b.unsubscribe(made.id, 'test://a')).toBe(true);
      expect(await b.unsubscribe(made.id, 'test://never')).toBe(true);
      expect(await a.subscribe(made.id, 'test://c', 2)).toBe('subscribed');
      expect(await held(a, made.id, ['test://a', 'test://b', 'test://c'])).toEqual(['test://b', 'test://c']);
    });

    it('refuses a subscription past the byte budget, and counts a removed URI out of it', async () => {
      const made = session('alice');
      await a.create(made, LIMITS);
      const uri = (c: string) => `test://${c.repeat(40)}`; // 47 bytes each
      expect(await a.subscribe(made.id, uri('a'), 10, 100)).toBe('subscribed');
      expect(await b.subscribe(made.id, uri('b'), 10, 100)).toBe('subscribed');
      expect(await a.subscribe(made.id, uri('c'), 10, 100)).toBe('full');
      expect(await a.subscribe(made.id, uri('a'), 10, 100)).toBe('subscribed');
      expect(await b.unsubscribe(made.id, uri('a'))).toBe(true);
      expect(await a.subscribe(made.id, uri('c'), 10, 100)).toBe('subscribed');
      expect(await held(a, made.id, [uri('a'), uri('b'), uri('c')])).toEqual([uri('b'), uri('c')]);
    });

    it('keeps at most maxEventBytes of events, dropping the oldest; one larger is never kept', async () => {
      const made = session('alice', { maxEvents: 100, maxEventBytes: 1000 });
      await a.create(made, LIMITS);
      const event = (seq: number, size: number) => ({ id: `p1_${seq}`, data: 'x'.repeat(size) });
      for (let seq = 1; seq <= 10; seq++) await a.append(made.id, event(seq, 300));
      const kept = await b.replay(made.id, 'p1', 0);
      expect(kept.map((e) => e.id)).toEqual(['p1_8', 'p1_9', 'p1_10']);
      expect(kept.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0)).toBeLessThanOrEqual(1000);
      await a.append(made.id, event(11, 5000));
      expect(await b.replay(made.id, 'p1', 0)).toEqual([]);
    });

    it('keeps every one of concurrent subscribes of one session, and lets no more than the cap through', async () => {
      const made = session('alice');
      await a.create(made, LIMITS);
      const uris = Array.from({ length: 12 }, (_, i) => `test://r${i}`);
      const under = await Promise.all(uris.slice(0, 6).map((uri, i) => (i % 2 ? a : b).subscribe(made.id, uri, 100)));
      expect(under).toEqual(Array(6).fill('subscribed'));
      expect(await held(a, made.id, uris)).toEqual(uris.slice(0, 6).sort());
      const over = await Promise.all(uris.slice(6).map((uri, i) => (i % 2 ? a : b).subscribe(made.id, uri, 8)));
      expect(over.filter((outcome) => outcome === 'subscribed')).toHaveLength(2);
      expect(over.filter((outcome) => outcome === 'full')).toHaveLength(4);
      expect(await held(b, made.id, uris)).toHaveLength(8);
    });
  });
}
