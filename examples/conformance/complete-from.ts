import type { Completer } from '../../src/index.js';

/** A completer over a fixed list: the values that start with what the user typed so far. */
export const completeFrom =
  (values: readonly string[]): Completer =>
  (typed) =>
    values.filter((value) => value.startsWith(typed));
