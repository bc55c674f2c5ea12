import ts from 'typescript';
import type { JsonSchema } from '../protocol/mcp-types.js';
import { classValidatorRules } from './class-validator-rules.js';
import { docOf, literalValueOf } from './doc-comments.js';

/**
 * Marks the schema of a `Date` argument, which the call revives from its date-time string. A symbol key rides
 * along every spread copy of the schema and is left out of the JSON the plugin emits.
 */
export const DATE_SCHEMA = Symbol('nestjs-mcp/plugin Date');
/** The TypeScript text of a union's `anyOf`, for a refusal that only the whole schema can see. */
export const UNION_TYPE = Symbol('nestjs-mcp/plugin union');

/** A type JSON Schema cannot say, with where in the value it sits (`filter.callback`) and why. */
export class TypeRefusal extends Error {
  constructor(
    readonly typeText: string,
    readonly reason: string,
    readonly path: readonly string[],
  ) {
    super(`${typeText}: ${reason}`);
  }
}

interface Expansion {
  name: string | undefined;
  recursive: boolean;
}

/**
 * Turns TypeScript types into JSON Schema (2020-12) with the program's type checker. One instance builds one
 * root schema: a named type met again inside itself goes to `$defs` and is referred to, and `defs()` gives them
 * for the root. What JSON cannot carry (functions, classes with methods, symbols, bigints) or what cannot be
 * named (a recursive anonymous type) is refused with a `TypeRefusal`, never widened to an open schema.
 */
export class TypeSchemaBuilder {
  private readonly expanding = new Map<ts.Type, Expansion>();
  private readonly named = new Map<ts.Type, string>();
  private readonly definitions: Record<string, JsonSchema> = {};
  private readonly path: string[] = [];

  /**
   * @param forResult a result's schema: a result is validated as the method returned it, before it is serialized,
   *   so a `Date` in it (a string only once serialized) has no schema that holds.
   */
  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly forResult = false,
  ) {}

  defs(): Record<string, JsonSchema> | undefined {
    return Object.keys(this.definitions).length > 0 ? this.definitions : undefined;
  }

  /** The schema of a value of `type` found at `segment` (an argument or property name, for refusals). */
  schemaAt(segment: string, type: ts.Type): JsonSchema {
    this.path.push(segment);
    try {
      return this.schemaOf(type);
    } finally {
      this.path.pop();
    }
  }

  /** An object type's schema, `$defs` reference resolved: what a whole-arguments `@Args()` parameter declares. */
  objectSchemaOf(type: ts.Type): JsonSchema {
    const schema = this.schemaOf(type);
    if (typeof schema.$ref === 'string') return { ...this.definitions[schema.$ref.slice('#/$defs/'.length)] };
    if (schema.type !== 'object') throw this.refuse(type, 'the arguments of a call are an object');
    return schema;
  }

  schemaOf(type: ts.Type): JsonSchema {
    const flags = type.flags;
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (flags & ts.TypeFlags.Union) return this.unionSchema(type as ts.UnionType);
    if (flags & ts.TypeFlags.Intersection) return this.intersectionSchema(type as ts.IntersectionType);
    if (flags & ts.TypeFlags.TemplateLiteral) {
      return { type: 'string', pattern: this.templatePattern(type as ts.TemplateLiteralType) };
    }
    if (flags & ts.TypeFlags.StringMapping) throw this.refuse(type, INTRINSIC_REFUSAL);
    if (flags & ts.TypeFlags.StringLike && !(flags & ts.TypeFlags.StringLiteral)) return { type: 'string' };
    if (flags & ts.TypeFlags.NumberLike && !(flags & ts.TypeFlags.NumberLiteral)) return { type: 'number' };
    if (flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (flags & ts.TypeFlags.Null) return { type: 'null' };
    const literal = literalOf(type);
    if (literal !== undefined) return { type: jsonTypeOfValue(literal.value), const: literal.value };
    if (flags & ts.TypeFlags.NonPrimitive) return { type: 'object' };
    if (flags & ts.TypeFlags.Object) return this.objectTypeSchema(type as ts.ObjectType);
    throw this.refuse(type, refusalOfFlags(flags));
  }

  private unionSchema(union: ts.UnionType): JsonSchema {
    const members = union.types.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
    if (members.length === 0) throw this.refuse(union, 'undefined is not a JSON value');
    const literals = members.map((member) => literalOf(member));
    if (literals.every((literal) => literal !== undefined)) {
      const values = literals.map((literal) => literal!.value);
      // `boolean` is the union `true | false`: written as the type, not as its two values.
      if (values.length === 2 && values.includes(true) && values.includes(false)) return { type: 'boolean' };
      const types = [...new Set(values.map(jsonTypeOfValue))];
      return { type: types.length === 1 ? types[0] : types, enum: values };
    }
    const booleans = members.filter((member) => member.flags & ts.TypeFlags.BooleanLiteral);
    const others = members.filter((member) => !(member.flags & ts.TypeFlags.BooleanLiteral));
    const schemas = others.map((member) => this.schemaOf(member));
    if (booleans.length === 2) schemas.push({ type: 'boolean' });
    else if (booleans.length === 1) schemas.push(this.schemaOf(booleans[0]));
    const nullable = schemas.findIndex((schema) => schema.type === 'null' && Object.keys(schema).length === 1);
    if (nullable >= 0 && schemas.length === 2) {
      const other = schemas[1 - nullable];
      if (typeof other.type === 'string' && other.enum === undefined && other.const === undefined) {
        return { ...other, type: [other.type, 'null'] };
      }
    }
    return schemas.length === 1 ? schemas[0] : { anyOf: schemas, [UNION_TYPE]: this.checker.typeToString(union) };
  }

  /** `A & B` of object types is one object; a branded primitive (`string & { __brand: 'Id' }`) is the primitive. */
  private intersectionSchema(type: ts.IntersectionType): JsonSchema {
    const primitive = type.types.find((member) => member.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike));
    if (primitive) return this.schemaOf(primitive);
    return this.propertiesSchema(type);
  }

  private objectTypeSchema(type: ts.ObjectType): JsonSchema {
    const symbolName = type.getSymbol()?.getName();
    if (symbolName === 'Date' && isFromDefaultLibrary(type)) {
      if (this.forResult) throw this.refuse(type, 'a Date is validated before it is serialized to a string');
      return { type: 'string', format: 'date-time', [DATE_SCHEMA]: true };
    }
    if (this.checker.isArrayType(type)) {
      const [item] = this.checker.getTypeArguments(type as ts.TypeReference);
      return { type: 'array', items: this.schemaAt('[]', item) };
    }
    if (this.checker.isTupleType(type)) return this.tupleSchema(type as ts.TupleTypeReference);
    if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
      throw this.refuse(type, 'a function is not a JSON value');
    }
    const done = this.named.get(type);
    if (done) return { $ref: `#/$defs/${done}` };
    const expansion = this.expanding.get(type);
    if (expansion) {
      if (!expansion.name) throw this.refuse(type, 'a recursive type needs a name (an interface, class or type alias)');
      expansion.recursive = true;
      return { $ref: `#/$defs/${expansion.name}` };
    }
    const current: Expansion = { name: this.nameOf(type), recursive: false };
    this.expanding.set(type, current);
    try {
      const schema = this.propertiesSchema(type);
      if (!current.recursive) return schema;
      this.definitions[current.name!] = schema;
      this.named.set(type, current.name!);
      return { $ref: `#/$defs/${current.name}` };
    } finally {
      this.expanding.delete(type);
    }
  }

  private tupleSchema(type: ts.TupleTypeReference): JsonSchema {
    const target = type.target;
    const elements = this.checker.getTypeArguments(type);
    const rest = target.elementFlags.findIndex((flag) => flag & ts.ElementFlags.Variable);
    if (rest >= 0 && rest < elements.length - 1) {
      throw this.refuse(type, 'elements after a rest element, which prefixItems and items cannot place');
    }
    const fixed = rest >= 0 ? elements.slice(0, rest) : elements;
    const schema: JsonSchema = {
      type: 'array',
      prefixItems: fixed.map((element, index) => this.schemaAt(`[${index}]`, element)),
      minItems: target.minLength,
    };
    if (rest >= 0) schema.items = this.schemaAt(`[${rest}]`, elements[rest]);
    else {
      schema.items = false;
      schema.maxItems = fixed.length;
    }
    return schema;
  }

  private propertiesSchema(type: ts.Type): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const property of this.checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (property.flags & ts.SymbolFlags.Method || (declaration && ts.isMethodDeclaration(declaration))) {
        throw this.refuse(type, `it has methods (${property.getName()}), and a value sent as JSON has none`);
      }
      // A result is serialized as returned, and a getter on a class's prototype is not among its JSON keys.
      if (this.forResult && property.flags & ts.SymbolFlags.Accessor && !(property.flags & ts.SymbolFlags.SetAccessor))
        continue;
      const name = property.getName();
      const propertyType = this.checker.getTypeOfSymbol(property);
      const schema = this.schemaAt(name, propertyType);
      const initializer = declaration && ts.isPropertyDeclaration(declaration) ? declaration.initializer : undefined;
      const refined = withPropertyFacts(schema, property, declaration, initializer, this.checker);
      properties[name] = refined.schema;
      const mayBeLeftOut = property.flags & ts.SymbolFlags.Optional || acceptsUndefined(propertyType);
      if (refined.unfilled && !mayBeLeftOut && !this.forResult) {
        this.path.push(name);
        const reason = `its initializer \`${initializer!.getText()}\` is not a literal the server can fill in`;
        const refusal = this.refuse(propertyType, reason);
        this.path.pop();
        throw refusal;
      }
      if (!mayBeLeftOut && !refined.optional) required.push(name);
    }
    const schema: JsonSchema = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    this.indexSignatures(type, schema);
    return schema;
  }

  /**
   * `[key: string]: T` is `additionalProperties`, a template literal key (`[key: \`x-${string}\`]: T`) a
   * `patternProperties` entry, which also answers to a string index. A number index is refused: which JSON keys
   * TypeScript reads as numbers (`String(Number(key)) === key`) no pattern says exactly.
   */
  private indexSignatures(type: ts.Type, schema: JsonSchema): void {
    const infos = this.checker.getIndexInfosOfType(type);
    const byString = infos.find((info) => info.keyType.flags & ts.TypeFlags.String);
    const values = byString && this.schemaAt('[key]', byString.type);
    if (values) schema.additionalProperties = values;
    for (const info of infos) {
      const keys = info.keyType.flags;
      if (keys & (ts.TypeFlags.String | ts.TypeFlags.ESSymbol)) continue;
      if (!(keys & ts.TypeFlags.TemplateLiteral)) {
        throw this.refuse(type, 'a number index signature: which JSON keys count as numbers no pattern says exactly');
      }
      const pattern = this.templatePattern(info.keyType as ts.TemplateLiteralType);
      const own = this.schemaAt('[key]', info.type);
      ((schema.patternProperties ??= {}) as Record<string, JsonSchema>)[pattern] = values
        ? { allOf: [own, values] }
        : own;
    }
  }

  /**
   * The anchored pattern of a template literal type whose holes are all `string` and apart: TypeScript matches
   * each delimiter at its first occurrence, which with unconstrained holes admits exactly the strings the
   * pattern does. A `number` or `bigint` hole is refused: TypeScript admits what `+s` reads as finite (spaces,
   * `0x1F`, `1e3`, but not `1e999`), which no pattern says exactly.
   */
  private templatePattern(type: ts.TemplateLiteralType): string {
    const hole = type.types.find((member) => !(member.flags & ts.TypeFlags.String));
    if (hole) {
      const text = this.checker.typeToString(hole);
      throw this.refuse(type, `a \`${text}\` hole in a template literal type, which no pattern matches exactly`);
    }
    if (type.texts.slice(1, -1).some((text) => text === '')) {
      throw this.refuse(type, 'two holes with nothing between them in a template literal type');
    }
    const [head, ...tail] = type.texts.map((text) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'));
    return `^${head}${tail.map((text) => `[\\s\\S]*${text}`).join('')}$`;
  }

  private nameOf(type: ts.Type): string | undefined {
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const name = symbol?.getName();
    if (!name || name.startsWith('__')) return undefined;
    const text = this.checker.typeToString(type);
    return text.replace(/[^A-Za-z0-9_]+/g, '_').replace(/_+$/, '');
  }

  private refuse(type: ts.Type, reason: string): TypeRefusal {
    return new TypeRefusal(this.checker.typeToString(type), reason, [...this.path]);
  }
}

/**
 * What a property's declaration adds: its comment, `readonly` (a getter without a setter too), its default and
 * its class-validator rules. `unfilled` is an initializer that is not a literal, which no call can fill in.
 */
function withPropertyFacts(
  schema: JsonSchema,
  property: ts.Symbol,
  declaration: ts.Declaration | undefined,
  initializer: ts.Expression | undefined,
  checker: ts.TypeChecker,
): { schema: JsonSchema; optional: boolean; unfilled: boolean } {
  const out: JsonSchema = typeof schema.$ref === 'string' ? { allOf: [schema] } : { ...schema };
  const description = docOf(property, checker);
  if (description) out.description = description;
  const getterOnly = property.flags & ts.SymbolFlags.GetAccessor && !(property.flags & ts.SymbolFlags.SetAccessor);
  if (getterOnly || (declaration && ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly)) {
    out.readOnly = true;
  }
  let optional = false;
  let unfilled = false;
  if (initializer) {
    optional = true;
    const value = literalValueOf(initializer) ?? enumMemberValue(initializer, checker);
    if (value !== undefined) out.default = value;
    else unfilled = true;
  }
  if (declaration && ts.isPropertyDeclaration(declaration)) {
    const rules = classValidatorRules(declaration, checker);
    Object.assign(out, rules.keywords);
    optional ||= rules.optional;
    // `@IsOptional()` says the property may be left out, as the app's `ValidationPipe` reads it.
    unfilled &&= !rules.optional;
  }
  return { schema: out, optional, unfilled };
}

/** `Unit.Celsius`: the value of a constant enum member. */
function enumMemberValue(node: ts.Expression, checker: ts.TypeChecker): string | number | undefined {
  return ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)
    ? checker.getConstantValue(node)
    : undefined;
}

function literalOf(type: ts.Type): { value: string | number | boolean | null } | undefined {
  if (type.isStringLiteral() || type.isNumberLiteral()) return { value: type.value };
  if (type.flags & ts.TypeFlags.BooleanLiteral)
    return { value: (type as { intrinsicName?: string }).intrinsicName === 'true' };
  if (type.flags & ts.TypeFlags.Null) return { value: null };
  return undefined;
}

function jsonTypeOfValue(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export function acceptsUndefined(type: ts.Type): boolean {
  if (type.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return true;
  return type.isUnion() && type.types.some((member) => member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void));
}

function isFromDefaultLibrary(type: ts.Type): boolean {
  const file = type.getSymbol()?.declarations?.[0]?.getSourceFile();
  return file !== undefined && /[\\/]lib\.[^\\/]*\.d\.ts$/.test(file.fileName);
}

const INTRINSIC_REFUSAL =
  'an intrinsic string type (Uppercase, Lowercase, Capitalize, Uncapitalize), whose strings no pattern matches exactly';

function refusalOfFlags(flags: ts.TypeFlags): string {
  if (flags & ts.TypeFlags.BigIntLike) return 'a bigint is not a JSON value';
  if (flags & ts.TypeFlags.ESSymbolLike) return 'a symbol is not a JSON value';
  if (flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return 'undefined is not a JSON value';
  if (flags & ts.TypeFlags.Never) return 'never has no value';
  if (flags & ts.TypeFlags.TypeParameter) return 'a type parameter has no schema of its own';
  return 'JSON Schema cannot express it';
}
