import { hasScopes, insufficientScope } from './required-scopes.js';

/**
 * How a call to a primitive the caller lacks scopes for is refused: by default with the 403 step-up challenge
 * that names the scopes (what the spec's step-up flow needs), or, with `hide`, as if the primitive did not
 * exist, so callers cannot enumerate names they may not list.
 */
export class ScopeGate {
  constructor(readonly hide: boolean) {}

  /** True when the caller may use the primitive; false when it must be answered as unknown; else throws the 403. */
  allows(
    required: readonly string[] | undefined,
    granted: readonly string[] | undefined,
    kind: string,
    name: string,
  ): boolean {
    if (required === undefined || hasScopes(required, new Set(granted))) return true;
    if (this.hide) return false;
    // Named only when refused: the label is built for the error, not for every call that passes.
    throw insufficientScope(`${kind} "${name}"`, required);
  }
}
