import { MAX_JSON_DEPTH, jsonFault } from '../../src/protocol/json-limits.js';

/** `levels` objects and arrays, alternating, nested one in the other around `inner`. */
function nested(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { member: value };
  return value;
}

describe('jsonFault: the depth limit and finite numbers of a parsed JSON value', () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more, through objects and arrays alike`, () => {
    expect(jsonFault(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonFault(nested(MAX_JSON_DEPTH + 1))).toBe('too-deep');
    expect(jsonFault(JSON.parse('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1)))).toBe('too-deep');
    expect(jsonFault(nested(3), 3)).toBeUndefined();
    expect(jsonFault(nested(4), 3)).toBe('too-deep');
  });

  it('refuses a value nested far past the limit without exhausting the stack', () => {
    expect(jsonFault(nested(1_000_000))).toBe('too-deep');
  });

  it('counts the depth of the deepest branch, not of the first or the last one', () => {
    const value = { a: 1, deep: nested(MAX_JSON_DEPTH), b: [1, 2] };
    expect(jsonFault(value)).toBe('too-deep');
    expect(jsonFault({ a: [{}], b: nested(MAX_JSON_DEPTH - 1), c: 'x' })).toBeUndefined();
  });

  it('finds a number that is not finite anywhere: at the top, in an object, deep in an array', () => {
    expect(jsonFault(Infinity)).toBe('non-finite');
    expect(jsonFault(JSON.parse('{"a":1e400}'))).toBe('non-finite');
    expect(jsonFault({ a: [1, { b: [2, NaN] }] })).toBe('non-finite');
    expect(jsonFault({ a: [1, { b: [2, -Infinity] }], c: 'x' })).toBe('non-finite');
    expect(jsonFault({ a: 1.5, b: -0, c: Number.MAX_VALUE, d: null, e: 'Infinity', f: true })).toBeUndefined();
  });

  it('reads own members only, as JSON has them: an inherited enumerable one is not the value', () => {
    const inherited = Object.create({ hidden: nested(MAX_JSON_DEPTH + 5) }) as Record<string, unknown>;
    inherited.shown = 1;
    expect(jsonFault(inherited)).toBeUndefined();
    expect(jsonFault(JSON.parse('{"__proto__":{"x":1e999}}'))).toBe('non-finite');
  });

  it('walks an argument of many members: 100,000 objects', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    expect(jsonFault({ items })).toBeUndefined();
    items[99_999].id = Infinity;
    expect(jsonFault({ items })).toBe('non-finite');
  });
});
