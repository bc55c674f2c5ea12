import { createHash } from 'node:crypto';

/**
 * Introspection outcomes by token, each valid until its own deadline, at most `maxEntries` of them: once full,
 * the least recently used entry makes room, so a flood of distinct tokens costs memory once and no more.
 * Keys are SHA-256 digests, so a heap dump or a debugger shows no bearer token that could be replayed.
 */
export class IntrospectionCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(private readonly maxEntries: number) {}

  /** The key of a token in this cache and in the table of introspections in flight. */
  static keyOf(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  /** The value stored under `key` if its deadline is still after `now`; an expired entry is dropped, never used. */
  get(key: string, now: number): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry); // Map keeps insertion order: re-inserting marks it most recently used.
    return entry.value;
  }

  set(key: string, value: T, expiresAt: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
