import { jest } from '@jest/globals';
import type { Slotted } from '../../src/server/util/slot-set.js';
import { SweptSet } from '../../src/server/util/swept-set.js';

const item = (name: string): Slotted & { name: string } => ({ name, slot: -1 });

describe('SweptSet', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('visits the items it holds once per period, with one timer for all of them', () => {
    const visits: string[][] = [];
    const set = new SweptSet<Slotted & { name: string }>(
      100,
      (items) => visits.push(items.map((i) => i.name).sort()),
      false,
    );
    const [a, b] = ['a', 'b'].map(item);
    set.add(a);
    set.add(b);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(100);
    set.delete(a);
    jest.advanceTimersByTime(100);
    expect(visits).toEqual([['a', 'b'], ['b']]);
  });

  it('stops its timer on a sweep that finds nothing, and starts it again with the next item', () => {
    const set = new SweptSet<Slotted & { name: string }>(100, () => undefined, true);
    const a = item('a');
    set.add(a);
    set.delete(a);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(100);
    expect(jest.getTimerCount()).toBe(0);
    set.add(a);
    expect(jest.getTimerCount()).toBe(1);
  });

  it('never starts a timer with a period of 0', () => {
    const set = new SweptSet<Slotted & { name: string }>(0, () => undefined, true);
    set.add(item('a'));
    expect(jest.getTimerCount()).toBe(0);
    expect(set.values().map((i) => i.name)).toEqual(['a']);
  });
});

describe('SweptSet without sweeps (a plain set of slotted items)', () => {
  const plain = () => new SweptSet<Slotted & { name: string }>(0, () => undefined, false);
  const names = (set: SweptSet<Slotted & { name: string }>) =>
    set
      .values()
      .map((i) => i.name)
      .sort();

  it('adds and deletes in any order, each item keeping its own position', () => {
    const set = plain();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(item);
    for (const i of [a, b, c, d]) set.add(i);
    expect(set.values()).toHaveLength(4);
    set.delete(b);
    expect(names(set)).toEqual(['a', 'c', 'd']);
    // d moved into b's place: deleting it by its new slot must still work.
    set.delete(d);
    set.delete(a);
    expect(names(set)).toEqual(['c']);
    expect(b.slot).toBe(-1);
  });

  it('ignores deleting an item twice or one it never held', () => {
    const set = plain();
    const [a, b] = ['a', 'b'].map(item);
    set.add(a);
    set.delete(a);
    set.delete(a);
    set.delete(b);
    expect(set.values()).toHaveLength(0);
    set.add(b);
    expect(names(set)).toEqual(['b']);
  });

  it('lets a walk over its values delete as it goes', () => {
    const set = plain();
    for (const name of ['a', 'b', 'c']) set.add(item(name));
    for (const i of set.values()) set.delete(i);
    expect(set.values()).toHaveLength(0);
  });
});
