/**
 * Deepest nesting of objects and arrays accepted in request arguments and in replies to server requests. Far
 * beyond any real schema; a value past it is refused before anything serialises, hashes or validates it, which
 * would otherwise recurse until the stack overflows.
 */
export const MAX_JSON_DEPTH = 64;

/** What makes a parsed JSON value unfit for a handler: nesting past the limit, or a number JSON cannot carry. */
export type JsonFault = 'too-deep' | 'non-finite';

/**
 * Why a parsed JSON value is refused, or undefined: it nests objects or arrays deeper than `max` levels, or holds
 * a number that is not finite (`1e400` parses as Infinity, which no schema's `type: number` refuses and which
 * serialises as `null`). Walked without recursion; the value itself is not pushed, and the stack is made for the
 * first nested value: flat arguments allocate none.
 */
export function jsonFault(value: unknown, max: number = MAX_JSON_DEPTH): JsonFault | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'non-finite';
  if (typeof value !== 'object' || value === null) return undefined;
  let stack: Array<[object, number]> | undefined;
  let node: object = value;
  let depth = 1;
  for (;;) {
    if (depth > max) return 'too-deep';
    // Indexed, not for-of: the iterator protocol costs the interpreter an object per member, on every call.
    const children = Object.values(node);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child === 'object' && child !== null) (stack ??= []).push([child, depth + 1]);
      else if (typeof child === 'number' && !Number.isFinite(child)) return 'non-finite';
    }
    const next = stack?.pop();
    if (next === undefined) return undefined;
    [node, depth] = next;
  }
}
