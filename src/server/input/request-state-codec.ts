import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { Caller } from '../access/caller-identity.js';
import type { CallerSource } from '../mcp-context.js';
import { canonicalDigest } from '../util/canonical-digest.js';
import { McpError } from '../../protocol/mcp-error.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { NOT_POSITIVE_INTEGER, STATE_SECRET_EMPTY, STATE_SECRET_SHORT } from '../errors/configuration-messages.js';

const VERSION = 'v1';
const DEFAULT_TTL_MS = 10 * 60_000;
const MAX_TOKEN_LENGTH = 1_000_000;

export interface RequestStateCodecOptions {
  /** One secret, or several for rotation: state is signed with the first and accepted under any. */
  secret?: string | readonly string[];
  /** How long a sealed state stays valid. Default 10 minutes. */
  ttlMs?: number;
  /** The clock, in epoch milliseconds (tests inject one). */
  now?: () => number;
}

/** A verified state: what was sealed, its unique id (for at-most-once consumption) and when it expires. */
export interface VerifiedState<T> {
  ok: true;
  payload: T;
  id: string;
  expiresAt: number;
}

export type StateRejection = 'malformed' | 'signature' | 'expired' | 'binding';

export type OpenedState<T> = VerifiedState<T> | { ok: false; reason: StateRejection };

interface SealedBody {
  p: unknown;
  exp: number;
  b: string;
  id: string;
}

/**
 * Seals the state a multi-round request carries between rounds: `v1.<payload>.<mac>`, where the payload is
 * base64url JSON `{p, exp, b, id}` and the MAC is HMAC-SHA-256 over `v1.<payload>`. `b` binds the state to the
 * request that created it, so a state cannot be replayed against another tool, other arguments or another
 * principal; `id` is unique per seal, for stores that enforce single use. The MAC is checked in constant time
 * over the exact string before anything is decoded, so trailing junk or a re-encoded payload never verifies.
 * Signed, not encrypted: put nothing secret in it.
 */
export class RequestStateCodec {
  readonly generatedSecret: boolean;
  private readonly keys: Buffer[];
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: RequestStateCodecOptions = {}) {
    const secrets =
      options.secret === undefined ? [] : typeof options.secret === 'string' ? [options.secret] : [...options.secret];
    if (options.secret !== undefined && secrets.length === 0) {
      throw new McpConfigurationError(STATE_SECRET_EMPTY);
    }
    if (secrets.some((s) => typeof s !== 'string' || s.length < 32)) {
      throw new McpConfigurationError(STATE_SECRET_SHORT);
    }
    const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
      throw new McpConfigurationError(NOT_POSITIVE_INTEGER('requestState.ttlMs', ttlMs));
    this.generatedSecret = secrets.length === 0;
    this.keys = this.generatedSecret ? [randomBytes(32)] : secrets.map((s) => Buffer.from(s, 'utf8'));
    this.ttlMs = ttlMs;
    this.now = options.now ?? Date.now;
  }

  seal(payload: unknown, binding: string): string {
    const body: SealedBody = {
      p: payload,
      exp: this.now() + this.ttlMs,
      b: binding,
      id: randomBytes(16).toString('base64url'),
    };
    const signed = `${VERSION}.${Buffer.from(JSON.stringify(body), 'utf8').toString('base64url')}`;
    return `${signed}.${this.sign(signed)}`;
  }

  /**
   * The MAC of `data` under the signing secret (the first): for the other records the server writes where
   * someone else could change them and reads back (a queued task's call). Give each kind of record a prefix of
   * its own, so that one kind's MAC never verifies as another's.
   */
  sign(data: string): string {
    return this.mac(this.keys[0], data);
  }

  /** Whether `mac` is the MAC of `data` under any of the secrets (rotation), compared in constant time. */
  verify(data: string, mac: string): boolean {
    const given = Buffer.from(mac, 'utf8');
    // Every key is tried, so how long verification takes does not tell which key (if any) matched.
    let verified = false;
    for (const key of this.keys) {
      const expected = Buffer.from(this.mac(key, data), 'utf8');
      if (expected.length === given.length && timingSafeEqual(expected, given)) verified = true;
    }
    return verified;
  }

  open<T>(token: unknown, binding: string): OpenedState<T> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: 'malformed' };
    if (!this.verify(`${parts[0]}.${parts[1]}`, parts[2])) return { ok: false, reason: 'signature' };
    const body = decode(parts[1]);
    if (!body) return { ok: false, reason: 'malformed' };
    if (body.exp <= this.now()) return { ok: false, reason: 'expired' };
    if (body.b !== binding) return { ok: false, reason: 'binding' };
    return { ok: true, payload: body.p as T, id: body.id, expiresAt: body.exp };
  }

  private mac(key: Buffer, data: string): string {
    return createHmac('sha256', key).update(data).digest('base64url');
  }
}

function decode(part: string): SealedBody | undefined {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { exp, b, id } = body as Partial<SealedBody>;
  return typeof exp === 'number' && typeof b === 'string' && typeof id === 'string' ? (body as SealedBody) : undefined;
}

/**
 * What a request state is bound to: the server (its audience, so a state cannot be replayed against another
 * server that shares the secret), the method, the primitive, its arguments, the caller identity (not the
 * token's claims: a refreshed token of the same caller continues the round) and whatever the app's
 * `requestState.bind` hook reads from the request. Most requests never seal or open a state, so the canonical
 * form, the hook and the hashing wait until one does, and so does the copy of the arguments: `capture` takes it
 * (objects and arrays copied, strings and numbers shared) before a handler that could change its argument object
 * and then seal a state runs, so that the change cannot move the binding. A call that can never seal one (its
 * client declared no capability it could be asked through) walks and copies nothing. A caller whose principal
 * identifies nobody cannot be told from another one: sealing or opening state for it is refused rather than
 * bound to nothing.
 */
export class StateBinding implements CallerSource {
  // Declared, and assigned in the constructor, rather than class fields or parameter properties: a field is
  // defined before the constructor runs (so one it assigns is written twice), and a definition costs the
  // interpreter more than an assignment. One binding is made per call.
  declare private readonly method: string;
  declare private readonly name: string;
  declare private args: unknown;
  // Set only once a state is sealed or opened (`capture`, `digest`): most calls do neither.
  declare private captured: boolean | undefined;
  declare private readonly caller: Caller;
  declare private readonly audience: string;
  declare private readonly extra: (() => unknown) | undefined;
  declare private value: string | undefined;

  constructor(method: string, name: string, args: unknown, caller: Caller, audience = '', extra?: () => unknown) {
    this.method = method;
    this.name = name;
    this.args = args;
    this.caller = caller;
    this.audience = audience;
    this.extra = extra;
  }

  /** The caller and what the `bind` hook reads, for what counts per caller; a caller that identifies nobody is nobody. */
  callerKey(): { caller: string | undefined; bound: unknown } {
    return { caller: this.caller ?? undefined, bound: this.extra?.() ?? undefined };
  }

  /** Copies the arguments as they are now: what the digest is of, whatever a handler does to them later. */
  capture(): void {
    if (this.captured) return;
    this.args = shape(this.args);
    this.captured = true;
  }

  get digest(): string {
    if (this.caller === null) {
      throw new McpError(
        ErrorCode.InternalError,
        'Internal error: request state cannot be bound to a principal without identity (give it an identifying member, e.g. sub)',
      );
    }
    this.value ??= canonicalDigest([
      this.audience,
      this.method,
      this.name,
      canonicalDigest((this.captured ? this.args : shape(this.args)) ?? null),
      this.caller ?? '',
      this.extra === undefined ? null : (this.extra() ?? null),
    ]);
    return this.value;
  }
}

/**
 * The JSON members of plain objects and arrays, copied as containers only; a value with `toJSON` (a Date given
 * in process) is captured as what it serialises to, and what JSON leaves out (undefined, functions) is left out,
 * so the binding is that of the arguments' JSON text.
 */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return shape((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) return value.map((item) => shape(item) ?? null);
  // A plain object rather than a null-prototype one, which V8 keeps as a dictionary and is slow to build: this
  // copy can be made on every call. Only an own `__proto__` key needs defining rather than assigning.
  const copy: Record<string, unknown> = {};
  // Indexed, not for-of: the iterator protocol costs the interpreter an object per member, on every call.
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const member = shape((value as Record<string, unknown>)[key]);
    if (member === undefined) continue;
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: member, enumerable: true, writable: true, configurable: true });
    else copy[key] = member;
  }
  return copy;
}
