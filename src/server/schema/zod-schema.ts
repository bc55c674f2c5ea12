import type { JsonSchema } from '../../protocol/mcp-types.js';
import type { StandardJsonSchemaSource, ZodSchemaSource } from './mcp-schema.js';
import { requireFromLibrary } from '../util/library-require.cjs';
import { optionalImport } from './optional-import.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { OLD_ZOD_NEEDS_CONVERTERS } from '../errors/configuration-messages.js';

/** The published direction: a tool's arguments are the schema's input, its result the schema's output. */
export type SchemaDirection = 'input' | 'output';

/** zod's own converter, for zod 4 schemas older than 4.2 (which do not convert themselves). */
export type ZodConverter = (schema: unknown, options: object) => JsonSchema;

export function isStandardJsonSchema(schema: unknown): schema is StandardJsonSchemaSource {
  const standard = (schema as { '~standard'?: { jsonSchema?: unknown } } | null)?.['~standard'];
  return typeof standard?.jsonSchema === 'object' && standard.jsonSchema !== null;
}

export function isZodSchema(schema: unknown): schema is ZodSchemaSource {
  return typeof schema === 'object' && schema !== null && typeof (schema as { _zod?: unknown })._zod === 'object';
}

export async function loadZodConverter(): Promise<ZodConverter> {
  return (await optionalImport<{ toJSONSchema: ZodConverter }>('zod', 'A zod schema')).toJSONSchema;
}

/** Whether the zod this package resolves is 4.2 or newer, whose schemas need no converter (false when absent). */
export function zodConvertsItself(): boolean {
  let version: string;
  try {
    ({ version } = requireFromLibrary('zod/package.json') as { version: string });
  } catch {
    return false;
  }
  const [major, minor] = version.split('.').map(Number);
  return major > 4 || (major === 4 && minor >= 2);
}

/** JSON Schema (2020-12) of a zod or Standard JSON Schema; `zod` is only needed for zod older than 4.2. */
export function standardToJsonSchema(
  schema: StandardJsonSchemaSource | ZodSchemaSource,
  direction: SchemaDirection,
  zod: ZodConverter | undefined,
): JsonSchema {
  if (isStandardJsonSchema(schema))
    return schema['~standard'].jsonSchema[direction]({ target: 'draft-2020-12' }) as JsonSchema;
  if (!zod) throw new McpConfigurationError(OLD_ZOD_NEEDS_CONVERTERS);
  return zod(schema, { io: direction, target: 'draft-2020-12' });
}
