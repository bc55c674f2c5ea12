import type { JsonSchema } from '../../protocol/mcp-types.js';
import { apiPropertiesOf, withApiProperties } from './api-property-schema.js';
import { classToJsonSchema, loadDtoConverter, type DtoConverter } from './class-validator-schema.js';
import type { DtoClass, McpSchema } from './mcp-schema.js';
import { namesDefaultDialect } from './schema-compiler.js';
import {
  isStandardJsonSchema,
  isZodSchema,
  loadZodConverter,
  standardToJsonSchema,
  zodConvertsItself,
  type SchemaDirection,
  type ZodConverter,
} from './zod-schema.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { CONVERTERS_NOT_LOADED } from '../errors/configuration-messages.js';

/**
 * The optional converters, each loaded once. Registration is synchronous: the DTO converter (CommonJS) loads on
 * the first DTO schema; zod's converter can only be imported asynchronously (the ESM zod in the ESM build), so
 * it is loaded ahead (`loadSchemaConverters`, or `loadLegacyZodConverter` where it can be needed).
 */
let dto: DtoConverter | Error | undefined;
let zod: ZodConverter | Error | undefined;

/** Loads the DTO and zod converters where their packages are installed; a missing one fails only when used. */
export async function loadSchemaConverters(): Promise<void> {
  dtoConverter();
  zod ??= await loadZodConverter().catch((error: Error) => error);
}

/**
 * What `McpModule` loads before the kernel exists: zod's converter, only when the zod this package resolves is
 * older than 4.2 (newer zod schemas convert themselves, and importing zod costs start-up time).
 */
export async function loadLegacyZodConverter(): Promise<void> {
  if (!zodConvertsItself()) zod ??= await loadZodConverter().catch((error: Error) => error);
}

/**
 * Turns any accepted schema into the JSON Schema that is published and validated (by the kernel's ajv path, so
 * every style validates identically). Plain JSON Schema passes through unaltered, `$schema` included: the author
 * wrote it, and clients may rely on it. A converted schema leaves out the 2020-12 `$schema` the converter adds (see
 * `withoutDefaultDialect`). A zod >= 4.2 or Standard JSON Schema converts itself; older zod needs
 * `loadSchemaConverters()` to have run.
 */
export function convertSchema(schema: McpSchema, direction: SchemaDirection): JsonSchema {
  if (typeof schema === 'function') return dtoSchema(schema);
  if (isStandardJsonSchema(schema)) return withoutDefaultDialect(standardToJsonSchema(schema, direction, undefined));
  if (isZodSchema(schema))
    return withoutDefaultDialect(standardToJsonSchema(schema, direction, loaded(zod, 'A zod schema')));
  return schema as JsonSchema;
}

/**
 * 2020-12 is MCP's default dialect, so a `$schema` naming it changes nothing for a client that follows the
 * protocol, and breaks one whose validator only knows draft-07 (Genkit's refuses every tool that carries it).
 * Any other `$schema` (draft-07) is kept: it changes what the schema means.
 */
function withoutDefaultDialect(schema: JsonSchema): JsonSchema {
  if (!namesDefaultDialect(schema)) return schema;
  const { $schema: _default, ...rest } = schema;
  return rest as JsonSchema;
}

/**
 * A DTO class's schema, the same for `@Tool`, `addTool` and a route tool's `@Body()`: its class-validator rules
 * (`class-validator-jsonschema`) with what its `@ApiProperty` decorators say (descriptions, examples, defaults,
 * formats), where the app uses `@nestjs/swagger`.
 */
function dtoSchema(dto: Function): JsonSchema {
  const api = apiPropertiesOf(dto);
  let rules: JsonSchema | undefined;
  try {
    rules = classToJsonSchema(dto as DtoClass, loaded(dtoConverter(), 'A DTO schema'));
  } catch (error) {
    // A DTO described by `@ApiProperty` alone needs no class-validator converter.
    if (api.size === 0) throw error;
  }
  return withApiProperties(rules, api, dtoSchema);
}

/** `convertSchema` after loading the converters it may need. */
export async function toJsonSchema(schema: McpSchema, direction: SchemaDirection): Promise<JsonSchema> {
  await loadSchemaConverters();
  return convertSchema(schema, direction);
}

function dtoConverter(): DtoConverter | Error {
  if (dto === undefined) {
    try {
      dto = loadDtoConverter();
    } catch (error) {
      dto = error as Error;
    }
  }
  return dto;
}

function loaded<T>(converter: T | Error | undefined, purpose: string): T {
  if (converter instanceof Error) throw converter;
  if (converter === undefined) throw new McpConfigurationError(CONVERTERS_NOT_LOADED(purpose));
  return converter;
}
