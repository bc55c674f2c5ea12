import type { Caller } from '../access/caller-identity.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { McpBusEvent } from '../events/event-bus.js';
import { hasScopes, insufficientScope } from '../access/required-scopes.js';
import type { ResourceMatch } from '../registry/resource-registry.js';
import { normalizeUri } from '../uri/uri-normalization.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { NOT_POSITIVE_INTEGER } from '../errors/configuration-messages.js';

/** The caps on `subscriptions/listen`, from the server options. */
export interface ListenLimits {
  /** Streams open at once, all callers together. */
  maxStreams: number;
  /** Streams open at once per authenticated caller, so one caller cannot take every slot. */
  maxStreamsPerCaller: number;
  /** URIs in one stream's `resourceSubscriptions`. */
  maxResourceSubscriptions: number;
  /** Characters in one watched URI (a 2025-era `resources/subscribe` URI too). */
  maxUriLength: number;
}

export const DEFAULT_LISTEN_LIMITS: ListenLimits = {
  maxStreams: 1000,
  maxStreamsPerCaller: 10,
  maxResourceSubscriptions: 1000,
  maxUriLength: 4096,
};

/**
 * The open listen streams, counted globally and per caller. A caller is its principal's JSON identity (what
 * request state is bound to), digested so the table holds short keys; without a principal (no `auth`) only the
 * global cap applies, since every anonymous caller would share one count.
 */
export class ListenSlots {
  private open = 0;
  private readonly perCaller = new Map<string, number>();

  constructor(private readonly limits: ListenLimits) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value < 1)
        throw new McpConfigurationError(NOT_POSITIVE_INTEGER(`listen.${name}`, value));
    }
  }

  get count(): number {
    return this.open;
  }

  /**
   * Takes a slot for a stream of `caller`, or refuses with -32603; call the returned function when it ends.
   * Anonymous callers share the global cap alone; callers whose principal identifies nobody share one share.
   */
  take(caller: Caller): () => void {
    if (this.open >= this.limits.maxStreams) throw new McpError(ErrorCode.InternalError, 'Subscription limit reached');
    const bucket = caller === undefined ? undefined : (caller ?? '');
    const mine = bucket === undefined ? 0 : (this.perCaller.get(bucket) ?? 0);
    if (bucket !== undefined && mine >= this.limits.maxStreamsPerCaller) {
      throw new McpError(
        ErrorCode.InternalError,
        `Subscription limit reached for this caller (${this.limits.maxStreamsPerCaller} streams)`,
      );
    }
    this.open++;
    if (bucket !== undefined) this.perCaller.set(bucket, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      if (bucket === undefined) return;
      const left = this.perCaller.get(bucket)! - 1;
      if (left === 0) this.perCaller.delete(bucket);
      else this.perCaller.set(bucket, left);
    };
  }
}

/**
 * The `resourceSubscriptions` of a listen request: the string entries, at most `max` of them (more is -32602,
 * never a silently shortened list).
 */
export function requestedSubscriptions(value: unknown, max: number, maxUriLength: number): string[] {
  if (!Array.isArray(value)) return [];
  if (value.length > max) {
    throw McpError.invalidParams(
      `Invalid params: resourceSubscriptions lists ${value.length} URIs; at most ${max} are accepted`,
    );
  }
  const uris = value.filter((u): u is string => typeof u === 'string');
  for (const uri of uris) checkUriLength(uri, maxUriLength);
  return uris;
}

/** Refuses (-32602) a URI to watch that is longer than any the server keeps for a subscriber. */
export function checkUriLength(uri: string, maxUriLength: number): void {
  if (uri.length > maxUriLength)
    throw McpError.invalidParams(`Invalid params: a subscribed URI may be at most ${maxUriLength} characters long`);
}

/**
 * What one listen stream's caller may be told. A resource update is delivered for a watched URI (compared in
 * normal form) only while the caller holds the scopes of what the URI matches now; a list change only when the
 * caller can see the primitive that changed. `forbidSubscriptions` refuses, up front, a subscription to a
 * resource the caller lacks scopes for, with the 403 step-up challenge a read would get.
 */
export class ListenAudience {
  private readonly watched: ReadonlySet<string>;

  constructor(
    private readonly granted: ReadonlySet<string>,
    private readonly match: (uri: string) => ResourceMatch | undefined,
    watched: readonly string[],
  ) {
    this.watched = new Set(watched.map((uri) => normalizeUri(uri)));
  }

  /** Throws InsufficientScope naming every scope the forbidden subscriptions need. */
  forbidSubscriptions(requested: readonly string[]): void {
    const needed = new Set<string>();
    let first: string | undefined;
    for (const uri of requested) {
      const required = this.match(uri)?.requiredScopes;
      if (hasScopes(required, this.granted)) continue;
      first ??= uri;
      for (const scope of required!) needed.add(scope);
    }
    if (first !== undefined) throw insufficientScope(`subscribing to resource "${first}"`, [...needed]);
  }

  /** A task's state is not a matter of scopes: the stream lets it through to its owner only, before asking this. */
  admits(event: Exclude<McpBusEvent, { type: 'tasks/status' }>): boolean {
    if (event.type !== 'resources/updated') return hasScopes(event.requiredScopes, this.granted);
    return this.watched.has(normalizeUri(event.uri)) && hasScopes(this.match(event.uri)?.requiredScopes, this.granted);
  }
}
