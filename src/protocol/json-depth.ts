/**
 * Deepest nesting of objects and arrays accepted in request arguments and in replies to server requests. Far
 * beyond any real schema; a value past it is refused before anything serialises, hashes or validates it, which
 * would otherwise recurse until the stack overflows.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed JSON value nests objects or arrays deeper than `max` levels; walked without recursion. The
 * value itself is not pushed, and the stack is made for the first nested value: flat arguments allocate none.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  let stack: Array<[object, number]> | undefined;
  let node: object = value;
  let depth = 1;
  for (;;) {
    if (depth > max) return true;
    // Indexed, not for-of: the iterator protocol costs the interpreter an object per member, on every call.
    const children = Object.values(node);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child === 'object' && child !== null) (stack ??= []).push([child, depth + 1]);
    }
    const next = stack?.pop();
    if (next === undefined) return false;
    [node, depth] = next;
  }
}
