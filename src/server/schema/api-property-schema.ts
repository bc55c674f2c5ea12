import type { JsonSchema } from '../../protocol/mcp-types.js';

// `@nestjs/swagger` keeps its decorators' options as reflect-metadata under these keys; reading them needs
// nothing of the package, so a DTO's `@ApiProperty` is used where the app has swagger and costs nothing where not.
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';
const API_MODEL_PROPERTIES_ARRAY = 'swagger/apiModelPropertiesArray';

/** What `@ApiParam`, `@ApiQuery` and `@ApiProperty` say of one value. */
export interface ApiValueMetadata {
  name?: string;
  in?: string;
  type?: unknown;
  isArray?: boolean;
  required?: boolean;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  nullable?: boolean;
  /** Where `@ApiQuery`/`@ApiParam` put an `enum` and its type. */
  schema?: Omit<ApiValueMetadata, 'schema'>;
}

/** `@ApiProperty` of each property of a DTO class, its inherited ones included. */
export function apiPropertiesOf(dto: Function): Map<string, ApiValueMetadata> {
  const properties = new Map<string, ApiValueMetadata>();
  const prototype = dto.prototype as object;
  for (const key of (Reflect.getMetadata(API_MODEL_PROPERTIES_ARRAY, prototype) ?? []) as string[]) {
    const name = key.startsWith(':') ? key.slice(1) : key;
    properties.set(name, (Reflect.getMetadata(API_MODEL_PROPERTIES, prototype, name) ?? {}) as ApiValueMetadata);
  }
  return properties;
}

/**
 * A DTO's schema from its class-validator rules (`base`, or none) with what its `@ApiProperty` decorators add:
 * descriptions, examples, defaults, formats, bounds, and whether a key is required. `nested` is the whole
 * conversion, for a property whose type is another DTO and which has no class-validator rule.
 */
export function withApiProperties(
  base: JsonSchema | undefined,
  api: ReadonlyMap<string, ApiValueMetadata>,
  nested: (dto: Function) => JsonSchema,
): JsonSchema {
  const schema = base ?? { type: 'object', properties: {} };
  if (api.size === 0) return schema;
  const properties = { ...((schema.properties ?? {}) as Record<string, JsonSchema>) };
  const required = new Set((schema.required ?? []) as string[]);
  for (const [key, value] of api) {
    properties[key] = withApiValue(properties[key] ?? apiTypeSchema(value, nested), value);
    if (value.required === false) required.delete(key);
    else required.add(key);
  }
  const out: JsonSchema = { ...schema, properties };
  if (required.size > 0) out.required = [...required];
  else delete out.required;
  return out;
}

function apiTypeSchema(api: ApiValueMetadata, nested: (dto: Function) => JsonSchema): JsonSchema {
  if (typeof api.type === 'function' && !isPrimitiveType(api.type)) {
    const schema = nested(api.type);
    return api.isArray ? { type: 'array', items: schema } : schema;
  }
  return {};
}

/** A value's JSON Schema with what its Swagger decorator adds (description, enum, bounds, type when missing). */
export function withApiValue(schema: JsonSchema, value: ApiValueMetadata): JsonSchema {
  const api: ApiValueMetadata = value.schema ? { ...value.schema, ...withoutUndefined(value) } : value;
  const out: JsonSchema = { ...schema };
  if (out.type === undefined && out.$ref === undefined) {
    const type = jsonTypeOf(api.type);
    if (type) out.type = api.isArray ? 'array' : type;
    if (type && api.isArray) out.items = { type };
  }
  const keys = [
    'description',
    'enum',
    'default',
    'format',
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    'pattern',
  ] as const;
  for (const key of keys) if (api[key] !== undefined && out[key] === undefined) out[key] = api[key];
  if (api.example !== undefined && out.examples === undefined) out.examples = [api.example];
  return out;
}

/** The JSON Schema type of a constructor or Swagger type name, where it is a primitive. */
export function jsonTypeOf(type: unknown): string | undefined {
  if (type === String || type === 'string') return 'string';
  if (type === Number || type === 'number') return 'number';
  if (type === 'integer') return 'integer';
  if (type === Boolean || type === 'boolean') return 'boolean';
  if (type === Array || type === 'array') return 'array';
  if (type === Date) return 'string';
  return undefined;
}

/** Whether a design type is a primitive wrapper rather than a DTO class. */
export function isPrimitiveType(type: unknown): boolean {
  return type === String || type === Number || type === Boolean || type === Array || type === Object || type === Date;
}

function withoutUndefined(value: ApiValueMetadata): ApiValueMetadata {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as ApiValueMetadata;
}
