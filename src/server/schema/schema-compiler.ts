import type { Ajv, AnySchema, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../protocol/mcp-types.js';
import { requireFromLibrary } from '../util/library-require.cjs';
import { safeRegExp } from '../uri/safe-regexp.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { INVALID_JSON_SCHEMA, INVALID_SCHEMA, UNSUPPORTED_SCHEMA_DIALECT } from '../errors/configuration-messages.js';
import type { SchemaOutcome } from './schema-check.js';

type AjvClass = new (options: Options) => Ajv;

let metaValidator2020: ValidateFunction | undefined;

/**
 * The meta-schema validator ajv generated ahead (110 KB of code), required by the first schema: an `import`
 * from the ESM build would have Node scan all of it for export names at start-up, which costs more than the
 * compile. The path is relative to `library-require.cjs`, which sits in `server/util` in both builds.
 */
function metaSchemaValidator2020(): ValidateFunction {
  return (metaValidator2020 ??= requireFromLibrary(
    '../schema/json-schema-2020-meta-validator.cjs',
  ) as ValidateFunction);
}

/**
 * ajv, its 2020-12 build and ajv-formats (CommonJS, about a hundred modules), loaded by the first schema that
 * needs a compile: a server whose schemas all compile on first use starts without them.
 */
function loadAjv(): { Ajv: AjvClass; Ajv2020: AjvClass; addFormats: (ajv: Ajv) => Ajv } {
  // ajv-formats ships CommonJS with a default export, which `require` gives as a property of the module.
  const formats = requireFromLibrary('ajv-formats') as { default?: (ajv: Ajv) => Ajv };
  return {
    Ajv: (requireFromLibrary('ajv') as { Ajv: AjvClass }).Ajv,
    Ajv2020: (requireFromLibrary('ajv/dist/2020.js') as { Ajv2020: AjvClass }).Ajv2020,
    addFormats: formats.default ?? (formats as unknown as (ajv: Ajv) => Ajv),
  };
}

const MAX_SCHEMAS_BY_VALUE = 256;
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DRAFT_2020_12_ID = 'https://json-schema.org/draft/2020-12/schema';
// What can still fail ajv's compile of a schema the meta-schema accepted (strict mode off, so unknown keywords
// and formats are ignored): a reference to resolve, an id or anchor that may clash, a pattern RE2 refuses. Looked
// for as a key anywhere in the schema, a property named so included: a false alarm only compiles at once.
const KEYS_THAT_CAN_FAIL_COMPILE = new Set([
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$recursiveAnchor',
  '$schema',
  '$vocabulary',
  'pattern',
  'patternProperties',
]);

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
  /** The same check as a tool's input or output check: the value as it came, or why it was refused. */
  readonly check: (value: unknown) => SchemaOutcome;
}

/** ajv's validator, or until a deferred schema's first use the step that compiles it and takes its place. */
interface Validator {
  run: ((value: unknown) => boolean) & { readonly errors?: ErrorObject[] | null };
}

/**
 * Checks JSON Schemas at registration and compiles each once, at registration or (see `deferrable`) on its
 * first validation. Secure defaults: no `$data`, no `allErrors` (both let a schema
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
    const compiled = deferrable(schema) ? this.onFirstUse(schema, subject) : this.now(schema, subject);
    this.cache.set(schema, compiled);
    return compiled;
  }

  private onFirstUse(schema: JsonSchema, subject: string): CompiledSchema {
    const validator: Validator = {
      run: (value) => {
        validator.run = this.compiled(schema, subject);
        return validator.run(value);
      },
    };
    return compiledSchema(schema, validator);
  }

  private now(schema: JsonSchema, subject: string): CompiledSchema {
    return compiledSchema(schema, { run: this.compiled(schema, subject) });
  }

  private compiled(schema: JsonSchema, subject: string): ValidateFunction {
    const ajv = this.dialectFor(schema, subject);
    let fn: ValidateFunction;
    try {
      if (ajv === this.draft2020) checkMetaSchema2020(ajv, schema);
      fn = ajv.compile(schema as AnySchema);
    } catch (error) {
      throw new McpConfigurationError(INVALID_JSON_SCHEMA(subject, (error as Error).message), { cause: error });
    }
    return fn;
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
    if (declared === undefined || namesDefaultDialect(schema)) {
      if (this.draft2020) return this.draft2020;
      const { Ajv2020, addFormats } = loadAjv();
      return (this.draft2020 = addFormats(new Ajv2020({ ...AJV_OPTIONS, validateSchema: false })));
    }
    if (typeof declared === 'string' && DRAFT_07.test(declared)) {
      if (this.draft07) return this.draft07;
      const { Ajv, addFormats } = loadAjv();
      return (this.draft07 = addFormats(new Ajv(AJV_OPTIONS)));
    }
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
  } else {
    const validateMetaSchema = metaSchemaValidator2020();
    if (!validateMetaSchema(schema))
      throw new McpConfigurationError(INVALID_SCHEMA(ajv.errorsText(validateMetaSchema.errors)));
  }
}

/**
 * Whether a schema can wait for its first validation to be compiled: a 2020-12 one the pre-built meta-schema
 * validator accepts, naming nothing else a compile could fail on. Its configuration errors fail start-up all
 * the same, and ajv is loaded only once a call needs it. Any other schema is compiled at once, where ajv words
 * the error.
 */
function deferrable(schema: JsonSchema): boolean {
  if (schema.$schema !== undefined && schema.$schema !== DRAFT_2020_12_ID) return false;
  return metaSchemaValidator2020()(schema) === true && !hasKeyIn({ ...schema, $schema: undefined });
}

/** Whether any object in `value` has one of the keys a compile can fail on (one set to undefined aside). */
function hasKeyIn(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasKeyIn);
  return Object.entries(value).some(
    ([key, child]) => (child !== undefined && KEYS_THAT_CAN_FAIL_COMPILE.has(key)) || hasKeyIn(child),
  );
}

/**
 * Each check calls ajv's function straight from the closure the caller holds (a call costs about as much as
 * ajv's own work on a small argument); `validator.run` is read after the call, as a deferred schema's first call
 * puts the compiled function there.
 */
function compiledSchema(schema: JsonSchema, validator: Validator): CompiledSchema {
  return {
    schema,
    validate: (value) => (validator.run(value) ? null : describeError(validator.run.errors?.[0])),
    check: (value) => (validator.run(value) ? { value } : { error: describeError(validator.run.errors?.[0]) }),
  };
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
