import { McpConfigurationError } from './configuration-error.js';
import { OPTION_NOT_A_GROUP, UNKNOWN_OPTION } from './configuration-messages.js';

/** `true` for an option that is a value; for a group, each of its keys. */
type GroupKeys<G> = { readonly [K in keyof Required<G>]: true };

/**
 * Every key of an options type, written out once beside it: the compiler holds the list to the type (a key
 * missing or extra on either side fails the build), and start-up reads it, since types are gone at run time.
 * A group the options validate elsewhere, or whose shape is a union, is `true` like a value.
 */
export type OptionKeys<T> = { readonly [K in keyof Required<T>]: true | GroupKeys<NonNullable<T[K]>> };

type KnownKeys = Readonly<Record<string, true | Readonly<Record<string, true>>>>;

/**
 * Refuses a key the options do not have, at the top or inside a group, naming the group it belongs in when
 * another one has it: a misplaced key would otherwise be ignored without a word (a secret that signs nothing,
 * a limit that limits nothing).
 */
export function rejectUnknownOptions(options: object, known: KnownKeys, where: string): void {
  for (const [key, value] of Object.entries(options)) {
    const group = known[key];
    if (group === undefined) throw new McpConfigurationError(UNKNOWN_OPTION(where, key, placeOf(known, key)));
    if (group === true || value === undefined) continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new McpConfigurationError(OPTION_NOT_A_GROUP(where, key, Object.keys(group), value));
    }
    for (const inner of Object.keys(value)) {
      if (!Object.hasOwn(group, inner)) {
        throw new McpConfigurationError(UNKNOWN_OPTION(where, `${key}.${inner}`, placeOf(known, inner)));
      }
    }
  }
}

/** Where a key lives: at the top, or in the first group that has it. */
function placeOf(known: KnownKeys, key: string): string | undefined {
  if (Object.hasOwn(known, key)) return key;
  for (const [group, keys] of Object.entries(known)) {
    if (keys !== true && Object.hasOwn(keys, key)) return `${group}.${key}`;
  }
  return undefined;
}
