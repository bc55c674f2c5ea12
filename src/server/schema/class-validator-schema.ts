import type { JsonSchema } from '../../protocol/mcp-types.js';
import type { DtoClass } from './mcp-schema.js';
import { optionalRequire } from './optional-import.js';
import { requireFromLibrary } from '../util/library-require.cjs';

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

/**
 * Loads the converter synchronously (both packages are CommonJS), so it loads on the first DTO schema instead of
 * at every start-up: `class-validator-jsonschema` pulls in all of class-validator, which costs more start-up
 * time than the rest of the module together.
 */
export function loadDtoConverter(): DtoConverter {
  const converter = optionalRequire<ClassValidatorJsonSchema>('class-validator-jsonschema', 'A DTO schema');
  return { converter, classTransformerMetadataStorage: classTransformerStorage() };
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
function classTransformerStorage(): unknown {
  try {
    const storage = requireFromLibrary('class-transformer/cjs/storage.js') as { defaultMetadataStorage?: unknown };
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
