/** What checking a value against a schema gives: the value the handler sees, or why it was refused. */
export type SchemaOutcome = { readonly value: unknown; readonly error?: undefined } | { readonly error: string };

/** Checks one value against one schema, with the semantics of the library the schema was written with. */
export type SchemaCheck = (value: unknown) => SchemaOutcome | Promise<SchemaOutcome>;

/** A schema that validates itself (Standard Schema v1, implemented by zod 4, Valibot, ArkType and others). */
export interface StandardSchemaSource {
  readonly '~standard': {
    readonly validate: (value: unknown) => StandardResult | Promise<StandardResult>;
  };
}

interface StandardResult {
  readonly value?: unknown;
  readonly issues?: ReadonlyArray<{
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
  }>;
}

export function isStandardSchema(schema: unknown): schema is StandardSchemaSource {
  const standard = (schema as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof standard?.validate === 'function';
}

/**
 * A Standard Schema is its own validator, as `schema.parse` would be: what the handler receives is the schema's
 * output (unknown keys stripped or refused as the schema says, defaults filled, transforms and coercions
 * applied), and refinements the published JSON Schema cannot express are checked too.
 */
export function standardSchemaCheck(schema: StandardSchemaSource): SchemaCheck {
  const validate = schema['~standard'].validate;
  return (value) => {
    const result = validate(value);
    return result instanceof Promise ? result.then(toOutcome) : toOutcome(result);
  };
}

function toOutcome(result: StandardResult): SchemaOutcome {
  const issue = result.issues?.[0];
  if (!issue) return { value: result.value };
  const path = (issue.path ?? []).map((part) => String(typeof part === 'object' ? part.key : part)).join('.');
  return { error: `Invalid argument ${path ? `"${path}"` : '(root)'}: ${issue.message}` };
}
