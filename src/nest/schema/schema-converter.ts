import type { JsonSchema } from '../../protocol/mcp-types.js';
import { classToJsonSchema } from './class-validator.schema.js';
import type { McpSchema } from './mcp-schema.type.js';
import { isStandardJsonSchema, isZodSchema, standardToJsonSchema, type SchemaDirection } from './zod.schema.js';

/**
 * Turns whatever a decorator was given into the JSON Schema that is published and validated (by the kernel's
 * ajv path, so all three styles validate identically). Plain JSON Schema passes through unaltered.
 */
export async function toJsonSchema(schema: McpSchema, direction: SchemaDirection): Promise<JsonSchema> {
  if (typeof schema === 'function') return classToJsonSchema(schema);
  if (isStandardJsonSchema(schema) || isZodSchema(schema)) return standardToJsonSchema(schema, direction);
  return schema as JsonSchema;
}
