import type { JsonSchema } from '../../protocol/mcp-types.js';
import type { DtoClass } from './mcp-schema.type.js';
import { optionalImport } from './optional-import.js';

interface ClassValidatorJsonSchema {
  targetConstructorToSchema(target: Function, options: object): JsonSchema;
  validationMetadatasToSchemas(options: object): Record<string, JsonSchema>;
}

/** The loaded converter and class-transformer's metadata (which tells nested DTO types), when installed. */
export interface DtoConverter {
  converter: ClassValidatorJsonSchema;
  classTransformerMetadataStorage: unknown;
}

const DEFS = '#/$defs/';

export async function loadDtoConverter(): Promise<DtoConverter> {
  const converter = await optionalImport<ClassValidatorJsonSchema>('class-validator-jsonschema', 'A DTO schema');
  return { converter, classTransformerMetadataStorage: await classTransformerStorage() };
}

/**
 * JSON Schema of a class-validator DTO, derived from its decorators by `class-validator-jsonschema`, so the DTO
 * stays the single source of truth. Nested DTOs (`@ValidateNested()` + `@Type()`) land in `$defs`.
 */
export function classToJsonSchema(
  dto: DtoClass,
  { converter, classTransformerMetadataStorage }: DtoConverter,
): JsonSchema {
  const options = { refPointerPrefix: DEFS, classTransformerMetadataStorage };
  const root = converter.targetConstructorToSchema(dto, options);
  if (!root.type) root.type = 'object';
  const referenced = collectRefs(root);
  if (referenced.size === 0) return root;
  const all = converter.validationMetadatasToSchemas(options);
  const defs: Record<string, JsonSchema> = {};
  for (const name of referenced) {
    if (defs[name] || !all[name]) continue;
    defs[name] = all[name];
    for (const nested of collectRefs(all[name])) referenced.add(nested);
  }
  return { ...root, $defs: defs };
}

/** class-transformer is optional: without it, nested DTO types are not followed. */
async function classTransformerStorage(): Promise<unknown> {
  try {
    const storage = (await import('class-transformer/cjs/storage.js' as string)) as {
      defaultMetadataStorage?: unknown;
    };
    return storage.defaultMetadataStorage;
  } catch {
    return undefined;
  }
}

function collectRefs(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) collectRefs(item, into);
  } else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFS)) into.add(value.slice(DEFS.length));
      else collectRefs(value, into);
    }
  }
  return into;
}
