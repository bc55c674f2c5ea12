import type { JsonSchema, PromptArgument } from '../../protocol/mcp-types.js';

/**
 * The static method `nestjs-mcp/plugin` adds to a class with MCP methods (or `McpModule.loadPluginMetadata`
 * assigns, for SWC builds): it returns what the plugin derived from each method's types and comments, by name.
 */
export const MCP_PLUGIN_METADATA_FACTORY = '_MCP_METADATA_FACTORY';

/** What the plugin derived for one decorated method; the decorator's own options win over each key. */
export interface PluginMethodMetadata {
  kind: 'tool' | 'prompt' | 'resourceTemplate' | 'routeTool';
  description?: string;
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  arguments?: PromptArgument[];
  /**
   * A route tool's: the JSDoc of the values its route reads (a DTO's properties, a single key's `@param` tag), by
   * where the route reads them and their key there. Its arguments' schemas are the route's, built at start-up.
   */
  argumentDescriptions?: RouteArgumentDescriptions;
  /** What the derived arguments need before the call; absent when the JSON the schema checked is what it declares. */
  argumentPlan?: ArgumentPlan;
}

/**
 * What a call's arguments need beyond the JSON the schema checked for the method to receive what its types
 * declare: a `Date` revived from its date-time string, a property initializer's default filled in. Each part
 * applies to the kind of value it names (a string, an object, an array), so a union's members, which the plugin
 * holds to different kinds, share one plan.
 */
export interface ArgumentPlan {
  date?: true;
  /** An object's properties left out, and the values the call fills in. */
  defaults?: Record<string, unknown>;
  /** An object's declared properties (null: nothing to do, listed only beside `additional`). */
  properties?: Record<string, ArgumentPlan | null>;
  /** An object's other properties (a `Record<string, T>`). */
  additional?: ArgumentPlan;
  /** A tuple's leading items (null: nothing to do), then every other item. */
  prefixItems?: Array<ArgumentPlan | null>;
  items?: ArgumentPlan;
  /** An object of a named (recursive) type, planned in the root's `defs`. */
  ref?: string;
  defs?: Record<string, ArgumentPlan>;
}

/** Descriptions of a route's values by where it reads them (`@Param`, `@Query`, `@Body`) and their key. */
export type RouteArgumentDescriptions = Partial<Record<'path' | 'query' | 'body', Record<string, string>>>;

export type PluginClassMetadata = Record<string, PluginMethodMetadata>;

/** The plugin's metadata of a class's method, if it was built with the plugin. */
export function pluginMetadataOf(classRef: Function, methodName: string): PluginMethodMetadata | undefined {
  const factory = (classRef as unknown as Record<string, unknown>)[MCP_PLUGIN_METADATA_FACTORY];
  // An inherited factory is the parent's, which describes the methods the subclass inherits.
  return typeof factory === 'function' ? (factory as () => PluginClassMetadata)()[methodName] : undefined;
}

/**
 * The arguments as the method declares them, from the ones the schema validated: copies where something
 * changes, so the validated value (which a task or a log may hold) is left as it came.
 */
export function applyArgumentPlan(plan: ArgumentPlan, value: unknown, defs = plan.defs): unknown {
  if (typeof value === 'string') return plan.date ? (dateOf(value) ?? value) : value;
  if (Array.isArray(value)) {
    const leading = plan.prefixItems ?? [];
    if (leading.length === 0 && !plan.items) return value;
    return value.map((item, index) => {
      const itemPlan = index < leading.length ? leading[index] : plan.items;
      return itemPlan ? applyArgumentPlan(itemPlan, item, defs) : item;
    });
  }
  if (typeof value !== 'object' || value === null) return value;
  const own = plan.ref === undefined ? plan : defs?.[plan.ref];
  if (!own || !(own.defaults || own.properties || own.additional)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [key, fallback] of Object.entries(own.defaults ?? {})) {
    if (!Object.hasOwn(out, key)) setOwn(out, key, structuredClone(fallback));
  }
  for (const key of Object.keys(out)) {
    const declared = own.properties !== undefined && Object.hasOwn(own.properties, key);
    const keyPlan = declared ? own.properties![key] : own.additional;
    if (keyPlan) setOwn(out, key, applyArgumentPlan(keyPlan, out[key], defs));
  }
  return out;
}

// RFC 3339 date-time as the schema's `date-time` format admits it: any separator ajv does, an offset with or
// without its colon, any number of fraction digits (a Date keeps milliseconds), a leap second (the next one).
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[Tt\s](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:[Zz]|([+-])(\d\d)(?::?(\d\d))?)$/;

function dateOf(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hours, minutes, seconds, fraction = '', sign, offsetHours = '0', offsetMinutes = '0'] =
    match;
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const date = new Date(0);
  // `setUTCFullYear`, not `Date.UTC`, which reads the years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(
    Number(hours),
    Number(minutes) - offset,
    Number(seconds),
    Number(fraction.slice(0, 3).padEnd(3, '0')),
  );
  return date;
}

/** A key of the client's choosing (`__proto__` among them) is an own property, never the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
