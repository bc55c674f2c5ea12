/**
 * Deepest nesting of objects and arrays accepted in request arguments and in replies to server requests. Far
 * beyond any real schema; a value past it is refused before anything serialises, hashes or validates it, which
 * would otherwise recurse until the stack overflows.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed JSON value nests objects or arrays deeper than `max` levels; walked without recursion. */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Object.values(node))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
