import { Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from '../../protocol/mcp-types.js';
import { safeRegExp } from '../uri/safe-regexp.js';
import validateMetaSchema2020 from './json-schema-2020-meta-validator.cjs';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { INVALID_JSON_SCHEMA, INVALID_SCHEMA, UNSUPPORTED_SCHEMA_DIALECT } from '../errors/configuration-messages.js';

// ajv-formats ships CommonJS with a default export; under NodeNext the namespace object is what arrives.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

const MAX_SCHEMAS_BY_VALUE = 256;
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DRAFT_2020_12_ID = 'https://json-schema.org/draft/2020-12/schema';

// `optimize: false` halves the compile time of a tool's schema (1,000 tools boot in half the time) and costs
// about 10 ns per validation: start-up cost matters more than nanoseconds on a request that does I/O.
const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: false,
  $data: false,
  logger: false,
  validateSchema: true,
  addUsedSchema: false,
  code: { optimize: false, regExp: safeRegExp },
};

/** Whether a schema names 2020-12, MCP's default dialect, so that `$schema` says nothing a client needs. */
export function namesDefaultDialect(schema: JsonSchema): boolean {
  return typeof schema.$schema === 'string' && DRAFT_2020_12.test(schema.$schema);
}

export interface CompiledSchema {
  readonly schema: JsonSchema;
  /** Returns null when the value conforms, otherwise a message naming the failing argument and rule. */
  validate(value: unknown): string | null;
}

/**
 * Compiles JSON Schemas once, at registration. Secure defaults: no `$data`, no `allErrors` (both let a schema
 * author's input cost more than its size), and no `loadSchema`, so a remote `$ref` is never fetched: it fails
 * compilation and the tool is rejected instead of being validated permissively. Patterns run on RE2, so no
 * argument can make validation take more than linear time.
 */
export class SchemaCompiler {
  // Each dialect's ajv is built on its first schema: most servers never see a draft-07 one.
  private draft2020: Ajv | undefined;
  private draft07: Ajv | undefined;
  private readonly cache = new WeakMap<object, CompiledSchema>();
  private readonly byText = new Map<string, CompiledSchema>();

  compile(schema: JsonSchema, subject: string): CompiledSchema {
    const cached = this.cache.get(schema);
    if (cached) return cached;
    const ajv = this.dialectFor(schema, subject);
    let fn: ValidateFunction;
    try {
      if (ajv === this.draft2020) checkMetaSchema2020(ajv, schema);
      fn = ajv.compile(schema as AnySchema);
    } catch (error) {
      throw new McpConfigurationError(INVALID_JSON_SCHEMA(subject, (error as Error).message), { cause: error });
    }
    const compiled: CompiledSchema = {
      schema,
      validate: (value) => (fn(value) ? null : describeError(fn.errors?.[0])),
    };
    this.cache.set(schema, compiled);
    return compiled;
  }

  /**
   * For schemas a handler builds per request (an elicitation's `requestedSchema`): equal schemas share one
   * compilation, and past a bound the oldest is dropped from ajv too (ajv keeps every schema object it
   * compiled), so inline schemas cost one compile each and never accumulate.
   */
  compileByValue(schema: JsonSchema, subject: string): CompiledSchema {
    const text = JSON.stringify(schema);
    const known = this.byText.get(text);
    if (known) return known;
    if (this.byText.size >= MAX_SCHEMAS_BY_VALUE) {
      const [oldestText, oldest] = this.byText.entries().next().value as [string, CompiledSchema];
      this.byText.delete(oldestText);
      this.dialectFor(oldest.schema, subject).removeSchema(oldest.schema as AnySchema);
    }
    const compiled = this.compile(schema, subject);
    this.byText.set(text, compiled);
    return compiled;
  }

  private dialectFor(schema: JsonSchema, subject: string): Ajv {
    const declared = schema.$schema;
    if (declared === undefined || namesDefaultDialect(schema))
      return (this.draft2020 ??= addFormats(new Ajv2020({ ...AJV_OPTIONS, validateSchema: false }) as unknown as Ajv));
    if (typeof declared === 'string' && DRAFT_07.test(declared))
      return (this.draft07 ??= addFormats(new Ajv(AJV_OPTIONS)));
    throw new McpConfigurationError(UNSUPPORTED_SCHEMA_DIALECT(subject, declared));
  }
}

/**
 * ajv's `validateSchema` for a 2020-12 schema (its `validateSchema` option is off for that dialect), with the
 * meta-schema validator ajv generated ahead (scripts/generate-meta-validator.mjs) instead of the meta-schema
 * compiled in every process: that compile was most of a server's start-up after Nest's own. A `$schema` other
 * than the meta-schema's own id (`http:`, a trailing `#`) goes to ajv as before, with ajv's answer.
 */
function checkMetaSchema2020(ajv: Ajv, schema: JsonSchema): void {
  if (schema.$schema !== undefined && schema.$schema !== DRAFT_2020_12_ID) {
    ajv.validateSchema(schema as AnySchema, true);
  } else if (!validateMetaSchema2020(schema)) {
    throw new McpConfigurationError(INVALID_SCHEMA(ajv.errorsText(validateMetaSchema2020.errors)));
  }
}

function describeError(error: ErrorObject | undefined): string {
  if (!error) return 'Invalid arguments';
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `Missing required argument: ${path ? `${path}.${missing}` : missing}`;
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `Unexpected argument: ${path ? `${path}.${extra}` : extra}`;
  }
  return `Invalid argument ${path ? `"${path}"` : '(root)'}: ${error.message ?? 'is invalid'} (${error.keyword})`;
}
