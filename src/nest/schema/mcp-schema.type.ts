import type { Type } from '@nestjs/common';
import type { JsonSchema } from '../../protocol/mcp-types.js';

/** A schema that converts itself to JSON Schema (Standard JSON Schema, implemented by zod >= 4.2 and others). */
export interface StandardJsonSchemaSource {
  readonly '~standard': {
    readonly jsonSchema: {
      input(options: { target: string }): Record<string, unknown>;
      output(options: { target: string }): Record<string, unknown>;
    };
  };
}

/** A zod v4 schema (recognised by its `_zod` internals; converted with `z.toJSONSchema`). */
export interface ZodSchemaSource {
  readonly _zod: object;
}

/**
 * How a decorator may give a schema: plain JSON Schema (published unaltered), a zod v4 schema, any Standard
 * JSON Schema, or a class-validator DTO class.
 */
export type McpSchema = JsonSchema | StandardJsonSchemaSource | ZodSchemaSource | Type<unknown>;
