import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The MCP Registry's official `server.json` schema, version 2025-12-11, as published at
 * https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json (the modelcontextprotocol/static
 * repository, schemas/2025-12-11/server.schema.json). No npm package ships it, so it is read from the first of:
 * `MCP_REGISTRY_SCHEMA`, test/fixtures/registry/server.schema.2025-12-11.json, and the shared folder beside the
 * checkout (shared/schemas/registry/server.schema.2025-12-11.json).
 */
export const REGISTRY_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILE = 'server.schema.2025-12-11.json';

export function registrySchema(): Record<string, unknown> {
  const candidates = [
    process.env.MCP_REGISTRY_SCHEMA,
    join(root, 'test', 'fixtures', 'registry', FILE),
    join(root, '..', 'shared', 'schemas', 'registry', FILE),
  ].filter((path): path is string => path !== undefined);
  const found = candidates.find((path) => existsSync(path));
  if (!found)
    throw new Error(
      `The registry's server.json schema (${REGISTRY_SCHEMA_URL}) is at none of: ${candidates.join(', ')}`,
    );
  const schema = JSON.parse(readFileSync(found, 'utf8')) as Record<string, unknown>;
  if (schema.$id !== REGISTRY_SCHEMA_URL)
    throw new Error(`${found} is not the 2025-12-11 schema: $id ${String(schema.$id)}`);
  return schema;
}

/** A validator of the official schema: ajv's draft-07 build (the schema's dialect) with its formats. */
export function registryValidator(): ((entry: unknown) => boolean) & { errors?: unknown } {
  const require = createRequire(import.meta.url);
  const Ajv = require('ajv').default as new (options: object) => { compile(schema: object): any };
  const addFormats = require('ajv-formats').default as (ajv: object) => void;
  // Not strict: the schema carries OpenAPI's `example` beside the JSON Schema keywords.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(registrySchema());
}
