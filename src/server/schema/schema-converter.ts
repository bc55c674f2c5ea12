import type { JsonSchema } from '../../protocol/mcp-types.js';
import { classToJsonSchema, loadDtoConverter, type DtoConverter } from './class-validator.schema.js';
import type { McpSchema } from './mcp-schema.type.js';
import {
  isStandardJsonSchema,
  isZodSchema,
  loadZodConverter,
  standardToJsonSchema,
  type SchemaDirection,
  type ZodConverter,
} from './zod.schema.js';

/**
 * The optional converters, loaded once (`loadSchemaConverters`). Registration is synchronous, and these come
 * from optional packages that can only be imported asynchronously in both module formats, so they are loaded
 * ahead: `McpModule` does it before the kernel exists.
 */
let dto: DtoConverter | Error | undefined;
let zod: ZodConverter | Error | undefined;

/** Loads the DTO and zod converters where their packages are installed; a missing one fails only when used. */
export async function loadSchemaConverters(): Promise<void> {
  dto ??= await loadDtoConverter().catch((error: Error) => error);
  zod ??= await loadZodConverter().catch((error: Error) => error);
}

/**
 * Turns any accepted schema into the JSON Schema that is published and validated (by the kernel's ajv path, so
 * every style validates identically). Plain JSON Schema passes through unaltered. A zod >= 4.2 or Standard JSON
 * Schema converts itself; a DTO class (and older zod) needs `loadSchemaConverters()` to have run.
 */
export function convertSchema(schema: McpSchema, direction: SchemaDirection): JsonSchema {
  if (typeof schema === 'function') return classToJsonSchema(schema, loaded(dto, 'A DTO schema'));
  if (isStandardJsonSchema(schema)) return standardToJsonSchema(schema, direction, undefined);
  if (isZodSchema(schema)) return standardToJsonSchema(schema, direction, loaded(zod, 'A zod schema'));
  return schema as JsonSchema;
}

/** `convertSchema` after loading the converters it may need. */
export async function toJsonSchema(schema: McpSchema, direction: SchemaDirection): Promise<JsonSchema> {
  await loadSchemaConverters();
  return convertSchema(schema, direction);
}

function loaded<T>(converter: T | Error | undefined, purpose: string): T {
  if (converter instanceof Error) throw converter;
  if (converter === undefined)
    throw new Error(`${purpose} needs the converters loaded first: await loadSchemaConverters()`);
  return converter;
}
