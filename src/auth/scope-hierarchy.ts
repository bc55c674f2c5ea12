/**
 * What each scope grants, closed under inclusion once at start-up: with `{ admin: ['write'], write: ['read'] }`
 * a token with `admin` holds `admin`, `write` and `read`.
 */
export class ScopeHierarchy {
  private readonly implied = new Map<string, ReadonlySet<string>>();

  constructor(hierarchy: Record<string, string[]> = {}) {
    for (const scope of Object.keys(hierarchy)) {
      const closure = new Set<string>();
      const pending = [...(hierarchy[scope] ?? [])];
      while (pending.length > 0) {
        const next = pending.pop()!;
        if (closure.has(next) || next === scope) continue;
        closure.add(next);
        pending.push(...(hierarchy[next] ?? []));
      }
      this.implied.set(scope, closure);
    }
  }

  /** The granted scopes plus every scope they include. */
  expand(granted: readonly string[]): string[] {
    const all = new Set(granted);
    for (const scope of granted) for (const included of this.implied.get(scope) ?? []) all.add(included);
    return [...all];
  }

  /**
   * The scopes of `supported` that include no other scope: what a first token should carry. A scope that
   * includes others (`admin` in `{ admin: ['write'] }`) is asked for only when a call needs it.
   */
  leastPrivileged(supported: readonly string[] | undefined): string[] | undefined {
    return supported?.filter((scope) => (this.implied.get(scope)?.size ?? 0) === 0);
  }
}
