import 'reflect-metadata';
import { IsString } from 'class-validator';
import { z } from 'zod';
import { optionalImport } from '../../src/server/schema/optional-import.js';
import { toJsonSchema } from '../../src/server/schema/schema-converter.js';

class NameDto {
  @IsString()
  name!: string;
}

describe('schema conversion', () => {
  it('passes plain JSON Schema through as the same object', async () => {
    const schema = { type: 'object', properties: { x: { type: 'string' } } };
    expect(await toJsonSchema(schema, 'input')).toBe(schema);
  });

  it('converts a zod schema by direction (input keeps defaults optional, output requires them)', async () => {
    const schema = z.object({ n: z.number().default(1) });
    expect((await toJsonSchema(schema, 'input')).required).toBeUndefined();
    expect((await toJsonSchema(schema, 'output')).required).toEqual(['n']);
  });

  it('derives a DTO schema', async () => {
    expect(await toJsonSchema(NameDto, 'input')).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
  });

  it('names the package to install when an optional one is missing', async () => {
    await expect(optionalImport('no-such-package-for-mcp', 'A zod schema')).rejects.toThrow(
      'A zod schema needs the optional package "no-such-package-for-mcp": npm install no-such-package-for-mcp',
    );
  });
});
