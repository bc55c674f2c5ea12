import type { JsonSchema } from '../protocol/mcp-types.js';
import type { ArgumentPlan } from './metadata/plugin-metadata.js';
import { DATE_SCHEMA, TypeRefusal, UNION_TYPE } from './type-schema.js';

const ALL_KINDS = ['string', 'number', 'boolean', 'null', 'object', 'array'];

/**
 * What the call does to the arguments an input schema the plugin derived has validated, for the method to
 * receive its declared types: revive each `Date`, fill in each property initializer's default. Undefined when
 * the JSON is already what the types say. A union is refused when one member needs either and another member
 * takes values of the same JSON type: the call could not tell which of them a value is.
 */
export function argumentPlanOf(schema: JsonSchema): ArgumentPlan | undefined {
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const planner = new Planner();
  // A named type needs a plan if it holds a Date or a default, or refers to one that does: grown to a fixed point.
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, def] of Object.entries(defs)) {
      if (planner.needed.has(name) || !planner.planOf(def, [])) continue;
      planner.needed.add(name);
      grew = true;
    }
  }
  const root = planner.planOf(schema, []);
  if (!root || planner.needed.size === 0) return root;
  const planned = [...planner.needed].map((name) => [name, planner.planOf(defs[name], [])!]);
  return { ...root, defs: Object.fromEntries(planned) };
}

class Planner {
  readonly needed = new Set<string>();

  planOf(schema: JsonSchema, path: string[]): ArgumentPlan | undefined {
    if (marker(schema, DATE_SCHEMA)) return { date: true };
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref);
      return this.needed.has(name) ? { ref: name } : undefined;
    }
    if (Array.isArray(schema.allOf)) return this.planOf(schema.allOf[0] as JsonSchema, path);
    if (Array.isArray(schema.anyOf)) return this.unionPlan(schema, schema.anyOf as JsonSchema[], path);
    const plan: ArgumentPlan = {};
    this.objectPlan(schema, path, plan);
    const leading = ((schema.prefixItems ?? []) as JsonSchema[]).map((item, index) =>
      this.planOf(item, [...path, `[${index}]`]),
    );
    if (leading.some(Boolean)) plan.prefixItems = leading.map((item) => item ?? null);
    const items = isSchema(schema.items) && this.planOf(schema.items, [...path, '[]']);
    if (items) plan.items = items;
    return Object.keys(plan).length > 0 ? plan : undefined;
  }

  private objectPlan(schema: JsonSchema, path: string[], plan: ArgumentPlan): void {
    const properties: Record<string, ArgumentPlan | null> = {};
    const defaults: Record<string, unknown> = {};
    for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      properties[key] = this.planOf(property, [...path, key]) ?? null;
      if (property.default !== undefined) defaults[key] = property.default;
    }
    const additional =
      isSchema(schema.additionalProperties) && this.planOf(schema.additionalProperties, [...path, '[key]']);
    for (const keyed of Object.values((schema.patternProperties ?? {}) as Record<string, JsonSchema>)) {
      if (this.planOf(keyed, path)) {
        throw new TypeRefusal('a template literal key', 'a Date or a default under keys a pattern gives', path);
      }
    }
    if (additional) plan.additional = additional;
    const planned = Object.entries(properties).filter(([, value]) => value !== null);
    if (planned.length > 0 || additional) plan.properties = additional ? properties : Object.fromEntries(planned);
    if (Object.keys(defaults).length > 0) plan.defaults = defaults;
  }

  private unionPlan(schema: JsonSchema, members: JsonSchema[], path: string[]): ArgumentPlan | undefined {
    const plans = members.map((member) => this.planOf(member, path));
    if (!plans.some(Boolean)) return undefined;
    plans.forEach((plan, index) => {
      if (!plan) return;
      const kinds = this.kindsOf(members[index]);
      const clash = members.some(
        (other, at) => at !== index && this.kindsOf(other).some((kind) => kinds.includes(kind)),
      );
      if (clash) {
        throw new TypeRefusal(
          String(marker(schema, UNION_TYPE) ?? 'a union'),
          'a member holds a Date or a default, and another takes values of its JSON type, so the call cannot ' +
            'tell which of them a value is',
          path,
        );
      }
    });
    return Object.assign({}, ...plans.filter(Boolean)) as ArgumentPlan;
  }

  /** The JSON types a value of the schema may have (`integer` is a `number`). */
  private kindsOf(schema: JsonSchema): string[] {
    if (marker(schema, DATE_SCHEMA)) return ['string'];
    if (typeof schema.$ref === 'string') return ['object'];
    if (Array.isArray(schema.allOf)) return this.kindsOf(schema.allOf[0] as JsonSchema);
    if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).flatMap((member) => this.kindsOf(member));
    if (schema.type !== undefined) {
      return ([] as unknown[]).concat(schema.type).map((type) => (type === 'integer' ? 'number' : String(type)));
    }
    return ALL_KINDS;
  }
}

function marker(schema: JsonSchema, key: symbol): unknown {
  return (schema as Record<symbol, unknown>)[key];
}

function refName(ref: string): string {
  return ref.slice('#/$defs/'.length);
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
