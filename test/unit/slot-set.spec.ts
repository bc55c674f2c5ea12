import { SlotSet, type Slotted } from '../../src/server/util/slot-set.js';

const item = (name: string): Slotted & { name: string } => ({ name, slot: -1 });
const names = (set: SlotSet<Slotted & { name: string }>) =>
  set
    .values()
    .map((i) => i.name)
    .sort();

describe('SlotSet', () => {
  it('adds and deletes in any order, each item keeping its own position', () => {
    const set = new SlotSet<Slotted & { name: string }>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(item);
    for (const i of [a, b, c, d]) set.add(i);
    expect(set.size).toBe(4);
    set.delete(b);
    expect(names(set)).toEqual(['a', 'c', 'd']);
    // d moved into b's place: deleting it by its new slot must still work.
    set.delete(d);
    set.delete(a);
    expect(names(set)).toEqual(['c']);
    expect(b.slot).toBe(-1);
  });

  it('ignores deleting an item twice or one it never held', () => {
    const set = new SlotSet<Slotted & { name: string }>();
    const [a, b] = ['a', 'b'].map(item);
    set.add(a);
    set.delete(a);
    set.delete(a);
    set.delete(b);
    expect(set.size).toBe(0);
    set.add(b);
    expect(names(set)).toEqual(['b']);
  });

  it('lets a walk over its values delete as it goes', () => {
    const set = new SlotSet<Slotted & { name: string }>();
    for (const name of ['a', 'b', 'c']) set.add(item(name));
    for (const i of set.values()) set.delete(i);
    expect(set.size).toBe(0);
  });
});
