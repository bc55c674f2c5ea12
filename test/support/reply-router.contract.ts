import {
  ReplyCancelled,
  ReplyTimeout,
  type ClientReply,
  type ReplyRouter,
} from '../../src/server/legacy/reply-router.js';

const ANSWER: ClientReply = { result: { action: 'accept', content: { name: 'Ada' } } };
const later = (ms: number) => Date.now() + ms;

/**
 * The behaviour every ReplyRouter must have, as a suite any implementation runs against itself (the in-process
 * default here; a shared backend with its own factory). `make` builds a fresh router; `peer` (optional) builds
 * a second instance over the same backend, for delivery across instances.
 */
export function replyRouterContract(
  name: string,
  make: () => Promise<ReplyRouter> | ReplyRouter,
  peer?: (first: ReplyRouter) => Promise<ReplyRouter> | ReplyRouter,
): void {
  describe(`${name} (ReplyRouter contract)`, () => {
    let router: ReplyRouter;
    beforeEach(async () => {
      router = await make();
    });
    afterEach(async () => {
      await router.close();
    });

    it('hands a reply to the call that waits for it, once, and forgets the request', async () => {
      const pending = await router.register({ id: 'srv-1', owner: 'alice', expiresAt: later(10_000) });
      expect(router.size).toBe(1);
      expect(await router.deliver('srv-1', 'alice', ANSWER)).toBe('delivered');
      await expect(pending.reply).resolves.toEqual(ANSWER);
      expect(router.size).toBe(0);
      expect(await router.deliver('srv-1', 'alice', ANSWER)).toBe('unknown');
    });

    it('carries an error reply as it came', async () => {
      const pending = await router.register({ id: 'srv-err', owner: 'o', expiresAt: later(10_000) });
      const error: ClientReply = { error: { code: -32601, message: 'Method not found' } };
      expect(await router.deliver('srv-err', 'o', error)).toBe('delivered');
      await expect(pending.reply).resolves.toEqual(error);
    });

    it('answers unknown for an id nobody waits for, touching nothing', async () => {
      const pending = await router.register({ id: 'srv-2', owner: 'alice', expiresAt: later(10_000) });
      expect(await router.deliver('srv-nope', 'alice', ANSWER)).toBe('unknown');
      expect(router.size).toBe(1);
      await pending.cancel();
    });

    it('refuses a reply from another owner and keeps the request waiting for the real one', async () => {
      const pending = await router.register({ id: 'srv-3', owner: 'alice', expiresAt: later(10_000) });
      expect(await router.deliver('srv-3', 'mallory', { result: { action: 'decline' } })).toBe('forbidden');
      expect(router.size).toBe(1);
      expect(await router.deliver('srv-3', 'alice', ANSWER)).toBe('delivered');
      await expect(pending.reply).resolves.toEqual(ANSWER);
    });

    it('rejects the reply with ReplyTimeout at the deadline and forgets the request', async () => {
      const pending = await router.register({ id: 'srv-4', owner: 'o', expiresAt: later(30) });
      await expect(pending.reply).rejects.toBeInstanceOf(ReplyTimeout);
      expect(router.size).toBe(0);
      expect(await router.deliver('srv-4', 'o', ANSWER)).toBe('unknown');
    });

    it('withdraws a request on cancel: the reply rejects with ReplyCancelled and a late answer is unknown', async () => {
      const pending = await router.register({ id: 'srv-5', owner: 'o', expiresAt: later(10_000) });
      await pending.cancel();
      await pending.cancel();
      await expect(pending.reply).rejects.toBeInstanceOf(ReplyCancelled);
      expect(router.size).toBe(0);
      expect(await router.deliver('srv-5', 'o', ANSWER)).toBe('unknown');
    });

    it('cancel after delivery changes nothing', async () => {
      const pending = await router.register({ id: 'srv-6', owner: 'o', expiresAt: later(10_000) });
      await router.deliver('srv-6', 'o', ANSWER);
      await pending.cancel();
      await expect(pending.reply).resolves.toEqual(ANSWER);
    });

    it('refuses to register an id that is already waiting', async () => {
      const first = await router.register({ id: 'srv-7', owner: 'o', expiresAt: later(10_000) });
      await expect(router.register({ id: 'srv-7', owner: 'x', expiresAt: later(10_000) })).rejects.toThrow(/unique/);
      expect(await router.deliver('srv-7', 'o', ANSWER)).toBe('delivered');
      await expect(first.reply).resolves.toEqual(ANSWER);
    });

    it('close rejects every waiting reply and leaves nothing behind', async () => {
      const a = await router.register({ id: 'srv-8', owner: 'o', expiresAt: later(10_000) });
      const b = await router.register({ id: 'srv-9', owner: 'o', expiresAt: later(10_000) });
      await router.close();
      await expect(a.reply).rejects.toBeInstanceOf(ReplyCancelled);
      await expect(b.reply).rejects.toBeInstanceOf(ReplyCancelled);
      expect(router.size).toBe(0);
    });

    it('a reply promise nobody awaits never surfaces as an unhandled rejection', async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        await router.register({ id: 'srv-10', owner: 'o', expiresAt: later(5) });
        const cancelled = await router.register({ id: 'srv-11', owner: 'o', expiresAt: later(10_000) });
        await cancelled.cancel();
        await new Promise((resolve) => setTimeout(resolve, 40));
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });

    if (peer) {
      it('delivers a reply that reaches another instance to the one that waits', async () => {
        const other = await peer(router);
        try {
          const pending = await router.register({ id: 'srv-x', owner: 'o', expiresAt: later(10_000) });
          expect(await other.deliver('srv-x', 'mallory', ANSWER)).toBe('forbidden');
          expect(await other.deliver('srv-x', 'o', ANSWER)).toBe('delivered');
          await expect(pending.reply).resolves.toEqual(ANSWER);
          expect(await other.deliver('srv-x', 'o', ANSWER)).toBe('unknown');
        } finally {
          await other.close();
        }
      });
    }
  });
}
