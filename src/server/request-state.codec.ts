import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';

export interface RequestStateCodecOptions {
  /** One secret, or several for rotation: state is signed with the first and accepted under any. */
  secret?: string | readonly string[];
  /** How long a sealed state stays valid. */
  ttlMs?: number;
  now?: () => number;
}

export type OpenedState<T> = { ok: true; payload: T } | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'binding' };

/**
 * Seals the state a multi-round request carries between rounds: `v1.<payload>.<mac>`, where the payload is
 * base64url JSON `{p, exp, b}` and the MAC is HMAC-SHA-256 over `v1.<payload>`. `b` binds the state to the
 * request that created it, so a state cannot be replayed against another tool, other arguments or another
 * principal. The MAC is compared as an exact string in constant time, so trailing junk can never verify.
 * Signed, not encrypted: put nothing secret in it.
 */
export class RequestStateCodec {
  readonly generatedSecret: boolean;
  private readonly keys: Buffer[];
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: RequestStateCodecOptions = {}) {
    const secrets = options.secret === undefined ? [] : typeof options.secret === 'string' ? [options.secret] : [...options.secret];
    this.generatedSecret = secrets.length === 0;
    if (secrets.some((s) => typeof s !== 'string' || s.length < 32)) {
      throw new Error('requestStateSecret: every secret must be a string of at least 32 characters');
    }
    this.keys = this.generatedSecret ? [randomBytes(32)] : secrets.map((s) => Buffer.from(s, 'utf8'));
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
  }

  seal(payload: unknown, binding: string): string {
    const body = Buffer.from(JSON.stringify({ p: payload, exp: this.now() + this.ttlMs, b: binding }), 'utf8').toString('base64url');
    const signed = `${VERSION}.${body}`;
    return `${signed}.${this.mac(this.keys[0], signed)}`;
  }

  open<T>(token: unknown, binding: string): OpenedState<T> {
    if (typeof token !== 'string' || token.length > 1_000_000) return { ok: false, reason: 'malformed' };
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: 'malformed' };
    const signed = `${parts[0]}.${parts[1]}`;
    const given = Buffer.from(parts[2], 'utf8');
    const verified = this.keys.some((key) => {
      const expected = Buffer.from(this.mac(key, signed), 'utf8');
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!verified) return { ok: false, reason: 'signature' };
    let decoded: { p: T; exp: number; b: string };
    try {
      decoded = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (typeof decoded?.exp !== 'number' || decoded.exp < this.now()) return { ok: false, reason: 'expired' };
    if (decoded.b !== binding) return { ok: false, reason: 'binding' };
    return { ok: true, payload: decoded.p };
  }

  private mac(key: Buffer, data: string): string {
    return createHmac('sha256', key).update(data).digest('base64url');
  }
}

/** A digest of a JSON value that does not depend on key order, for binding state to the original arguments. */
export function canonicalDigest(value: unknown): string {
  return sha256(canonicalJson(value));
}

/**
 * What a request state is bound to: the method, the primitive, its arguments and the principal. Most requests
 * never seal or open a state, so the hashing waits until one does; the arguments and principal are captured as
 * canonical JSON up front, so a handler that changes its argument object cannot change the binding.
 */
export class StateBinding {
  private readonly args: string;
  private readonly principal: string | undefined;
  private value: string | undefined;

  constructor(
    private readonly method: string,
    private readonly name: string,
    args: unknown,
    principal: unknown,
  ) {
    this.args = canonicalJson(args);
    this.principal = principal === undefined ? undefined : canonicalJson(principal);
  }

  get digest(): string {
    this.value ??= canonicalDigest([this.method, this.name, sha256(this.args), this.principal === undefined ? '' : sha256(this.principal)]);
    return this.value;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
