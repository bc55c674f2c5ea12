/** An item a `SweptSet` can hold: it carries its own position, so removing it needs no lookup. */
export interface Slotted {
  slot: number;
}
