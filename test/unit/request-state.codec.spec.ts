import { createHmac } from 'node:crypto';
import { RequestStateCodec } from '../../src/server/input/request-state-codec.js';
import { canonicalDigest } from '../../src/server/util/canonical-digest.js';
import { InMemoryRequestStateStore } from '../../src/server/input/request-state-store.js';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('RequestStateCodec', () => {
  it('round-trips a payload under the same binding and reports its id and expiry', () => {
    const { now } = clock();
    const codec = new RequestStateCodec({ secret: KEY_A, now });
    const token = codec.seal({ step: 2, answers: ['x'] }, 'bind-1');
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const opened = codec.open(token, 'bind-1');
    expect(opened).toEqual({
      ok: true,
      payload: { step: 2, answers: ['x'] },
      id: expect.any(String),
      expiresAt: now() + 600_000,
    });
  });

  it('gives every seal a fresh id, so two equal states are different strings', () => {
    const codec = new RequestStateCodec({ secret: KEY_A });
    const a = codec.open(codec.seal(1, 'b'), 'b');
    const b = codec.open(codec.seal(1, 'b'), 'b');
    expect(a.ok && b.ok && a.id !== b.id).toBe(true);
  });

  it('rejects every changed byte of the token', () => {
    const codec = new RequestStateCodec({ secret: KEY_A });
    const token = codec.seal({ n: 1 }, 'b');
    for (let i = 0; i < token.length; i++) {
      const flipped = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(codec.open(flipped, 'b').ok).toBe(false);
    }
  });

  it('rejects appended junk, truncation and a re-encoded payload', () => {
    const codec = new RequestStateCodec({ secret: KEY_A });
    const token = codec.seal({ n: 1 }, 'b');
    expect(codec.open(`${token}-TAMPERED`, 'b')).toEqual({ ok: false, reason: 'signature' });
    expect(codec.open(token.slice(0, -1), 'b')).toEqual({ ok: false, reason: 'signature' });
    expect(codec.open(token.slice(0, token.lastIndexOf('.')), 'b')).toEqual({ ok: false, reason: 'malformed' });
    const [v, body, mac] = token.split('.');
    // Standard base64 with padding decodes to the same bytes, but it is not the signed string.
    const reencoded = Buffer.from(body, 'base64url').toString('base64');
    expect(codec.open(`${v}.${reencoded}.${mac}`, 'b').ok).toBe(false);
  });

  it('rejects malformed tokens without throwing', () => {
    const codec = new RequestStateCodec({ secret: KEY_A });
    for (const bad of [undefined, null, 42, {}, '', 'v1', 'v1..', 'v2.e30.abc', 'a.b.c.d', 'x'.repeat(1_000_001)]) {
      expect(codec.open(bad, 'b')).toEqual({ ok: false, reason: expect.stringMatching(/malformed|signature/) });
    }
  });

  it('rejects a validly signed payload that is not a sealed state', () => {
    const codec = new RequestStateCodec({ secret: KEY_A });
    // Forge with the real key (as a second writer of the same format would) to reach the decode step.
    const signed = `v1.${Buffer.from('[1,2]').toString('base64url')}`;
    const token = `${signed}.${createHmac('sha256', KEY_A).update(signed).digest('base64url')}`;
    expect(codec.open(token, 'b')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('expires after the TTL, using the injected clock', () => {
    const time = clock();
    const codec = new RequestStateCodec({ secret: KEY_A, ttlMs: 5_000, now: time.now });
    const token = codec.seal('s', 'b');
    time.advance(4_999);
    expect(codec.open(token, 'b').ok).toBe(true);
    time.advance(1);
    expect(codec.open(token, 'b')).toEqual({ ok: false, reason: 'expired' });
  });

  it('rejects a state opened under another binding', () => {
    const codec = new RequestStateCodec({ secret: KEY_A });
    expect(codec.open(codec.seal('s', 'tool-a'), 'tool-b')).toEqual({ ok: false, reason: 'binding' });
  });

  it('rejects a state signed with a key it does not know', () => {
    const signer = new RequestStateCodec({ secret: KEY_B });
    const verifier = new RequestStateCodec({ secret: KEY_A });
    expect(verifier.open(signer.seal('s', 'b'), 'b')).toEqual({ ok: false, reason: 'signature' });
  });

  it('rotates keys: signs with the first, accepts any', () => {
    const old = new RequestStateCodec({ secret: KEY_A });
    const rotated = new RequestStateCodec({ secret: [KEY_B, KEY_A] });
    const retired = new RequestStateCodec({ secret: [KEY_B] });
    const fromOld = old.seal('s', 'b');
    expect(rotated.open(fromOld, 'b').ok).toBe(true);
    const fromRotated = rotated.seal('s', 'b');
    expect(retired.open(fromRotated, 'b').ok).toBe(true);
    expect(old.open(fromRotated, 'b').ok).toBe(false);
    expect(retired.open(fromOld, 'b').ok).toBe(false);
  });

  it('generates a per-process key when no secret is given, and says so', () => {
    const a = new RequestStateCodec();
    const b = new RequestStateCodec();
    expect(a.generatedSecret).toBe(true);
    expect(new RequestStateCodec({ secret: KEY_A }).generatedSecret).toBe(false);
    expect(b.open(a.seal('s', 'b'), 'b').ok).toBe(false);
  });

  it('refuses short secrets, an empty rotation list and a non-positive TTL', () => {
    expect(() => new RequestStateCodec({ secret: 'short' })).toThrow(/at least 32/);
    expect(() => new RequestStateCodec({ secret: [KEY_A, 'short'] })).toThrow(/at least 32/);
    expect(() => new RequestStateCodec({ secret: [] })).toThrow(/at least one/);
    expect(() => new RequestStateCodec({ secret: KEY_A, ttlMs: 0 })).toThrow(/positive integer/);
  });
});

describe('canonicalDigest', () => {
  it('ignores key order and tells different values apart', () => {
    expect(canonicalDigest({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(canonicalDigest({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(canonicalDigest({ a: 1 })).not.toBe(canonicalDigest({ a: '1' }));
    expect(canonicalDigest({ a: [1, 2] })).not.toBe(canonicalDigest({ a: [2, 1] }));
  });
});

describe('InMemoryRequestStateStore', () => {
  it('accepts an id once and forgets it after its expiry', () => {
    const time = clock();
    const store = new InMemoryRequestStateStore(time.now);
    expect(store.consume('x', time.now() + 100)).toBe(true);
    expect(store.consume('x', time.now() + 100)).toBe(false);
    expect(store.consume('y', time.now() + 200)).toBe(true);
    time.advance(150);
    store.consume('z', time.now() + 100);
    expect(store.size).toBe(2);
  });
});
