import { McpConfigurationError } from '../errors/configuration-error.js';
import { INVALID_NAME, NOTHING_TO_COMPLETE } from '../errors/configuration-messages.js';
/** The rules every registry applies to what it is given, written once. */

/** Tool and prompt names: 1-128 characters from [A-Za-z0-9_.-]. */
const PRIMITIVE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function checkPrimitiveName(kind: 'tool' | 'prompt', name: unknown): asserts name is string {
  if (typeof name !== 'string' || !PRIMITIVE_NAME.test(name)) {
    throw new McpConfigurationError(INVALID_NAME(kind, name));
  }
}

/** Each completer must complete something the primitive declares (a prompt argument, a template variable). */
export function checkCompleters(
  owner: string,
  complete: object | undefined,
  declared: readonly string[],
  what: string,
): void {
  for (const key of Object.keys(complete ?? {})) {
    if (!declared.includes(key)) throw new McpConfigurationError(NOTHING_TO_COMPLETE(owner, what, key));
  }
}

/** Whether any of the registrations declares at least one completer (then `completions` is a capability). */
export function someDeclareCompleters(registrations: Iterable<{ complete?: object }>): boolean {
  for (const { complete } of registrations) if (complete && Object.keys(complete).length > 0) return true;
  return false;
}

/** The completer of one argument or variable, or null when it has none. */
export function completerOf<C>(complete: Record<string, C> | undefined, key: string): C | null {
  // Own keys only: an argument named "constructor" or "toString" must not find Object.prototype's methods.
  return complete && Object.hasOwn(complete, key) ? complete[key] : null;
}
