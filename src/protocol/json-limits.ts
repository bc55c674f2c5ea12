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
 * serialises as `null`). One walk that allocates nothing: an argument of many members costs a read of each, and
 * no garbage. It recurses, but never past `max` levels, so the stack it needs is bounded whatever the input.
 */
export function jsonFault(value: unknown, max: number = MAX_JSON_DEPTH): JsonFault | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'non-finite';
  if (typeof value !== 'object' || value === null) return undefined;
  return containerFault(value, 1, max);
}

/** `jsonFault` of an object or array at `depth`: what a caller that knows it holds one asks, without a call more. */
export function containerFault(node: object, depth: number, max: number): JsonFault | undefined {
  if (depth > max) return 'too-deep';
  // Each member judged here rather than in a call per member: for a scalar, what most arguments hold, the call
  // would cost more than the check. `x - x` is 0 for every finite number and NaN for NaN and either infinity.
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const member: unknown = node[i];
      if (typeof member === 'object') {
        const fault = member === null ? undefined : containerFault(member, depth + 1, max);
        if (fault !== undefined) return fault;
      } else if (typeof member === 'number' && member - member !== 0) return 'non-finite';
    }
    return undefined;
  }
  // for-in, not Object.keys or Object.values: V8 walks a parsed object's keys from its map's cache, where those
  // build an array per object. Own keys only, as JSON has them; an inherited enumerable key is not the value's.
  for (const key in node) {
    if (!Object.hasOwn(node, key)) continue;
    const member = (node as Record<string, unknown>)[key];
    if (typeof member === 'object') {
      const fault = member === null ? undefined : containerFault(member, depth + 1, max);
      if (fault !== undefined) return fault;
    } else if (typeof member === 'number' && member - member !== 0) return 'non-finite';
  }
  return undefined;
}
