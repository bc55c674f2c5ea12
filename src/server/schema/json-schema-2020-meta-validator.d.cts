import type { ValidateFunction } from 'ajv';

/** Validates a schema against the JSON Schema 2020-12 meta-schema, as ajv's own `validateSchema` does. */
declare const validateMetaSchema: ValidateFunction;
export = validateMetaSchema;
