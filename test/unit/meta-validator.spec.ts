import { Ajv2020 } from 'ajv/dist/2020.js';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import validateMetaSchema2020 from '../../src/server/schema/json-schema-2020-meta-validator.cjs';

/**
 * The generated 2020-12 meta-schema validator the kernel checks tool schemas with must answer as ajv's own
 * `validateSchema` does, and must be what the installed ajv generates.
 */
describe('generated JSON Schema 2020-12 meta-schema validator', () => {
  const ajv = new Ajv2020({ strict: false, logger: false });

  it.each([
    ['a valid object schema', { type: 'object', properties: { a: { type: 'string', pattern: '^a+$' } } }],
    ['an unknown type', { type: 'strin' }],
    ['a negative minLength', { minLength: -1 }],
    ['$data where a pattern string belongs', { properties: { p: { pattern: { $data: '1/x' } } } }],
    ['an $id with two fragments', { $id: 'a b ##' }],
    ['an $anchor starting with a digit', { $anchor: '1bad' }],
    ['a nested invalid items schema', { type: 'array', items: { type: 'object', required: 'a' } }],
    ['a non-string $comment', { $comment: 3 }],
  ])('answers as ajv.validateSchema for %s', (_label, schema) => {
    const expected = ajv.validateSchema(schema) as boolean;
    const expectedText = ajv.errorsText(ajv.errors);
    expect(validateMetaSchema2020(schema)).toBe(expected);
    expect(ajv.errorsText(validateMetaSchema2020.errors)).toBe(expectedText);
  });

  it('is what the installed ajv generates (scripts/generate-meta-validator.mjs --check)', async () => {
    const script = fileURLToPath(new URL('../../scripts/generate-meta-validator.mjs', import.meta.url));
    await expect(promisify(execFile)(process.execPath, [script, '--check'])).resolves.toBeDefined();
  });
});
