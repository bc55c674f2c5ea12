import type { JsonSchema } from '../../protocol/mcp-types.js';
import type { StandardJsonSchemaSource, ZodSchemaSource } from './mcp-schema.type.js';
import { optionalImport } from './optional-import.js';

/** The published direction: a tool's arguments are the schema's input, its result the schema's output. */
export type SchemaDirection = 'input' | 'output';

export function isStandardJsonSchema(schema: unknown): schema is StandardJsonSchemaSource {
  const standard = (schema as { '~standard'?: { jsonSchema?: unknown } } | null)?.['~standard'];
  return typeof standard?.jsonSchema === 'object' && standard.jsonSchema !== null;
}

export function isZodSchema(schema: unknown): schema is ZodSchemaSource {
  return typeof schema === 'object' && schema !== null && typeof (schema as { _zod?: unknown })._zod === 'object';
}

/**
 * JSON Schema (2020-12) of a zod or Standard JSON Schema. Schemas that convert themselves (zod >= 4.2) need no
 * import; older zod 4 schemas go through `z.toJSONSchema`, loaded only then.
 */
export async function standardToJsonSchema(schema: StandardJsonSchemaSource | ZodSchemaSource, direction: SchemaDirection): Promise<JsonSchema> {
  if (isStandardJsonSchema(schema)) return schema['~standard'].jsonSchema[direction]({ target: 'draft-2020-12' }) as JsonSchema;
  const { toJSONSchema } = await optionalImport<{ toJSONSchema(s: unknown, o: object): JsonSchema }>('zod', 'A zod schema');
  return toJSONSchema(schema, { io: direction, target: 'draft-2020-12' });
}
