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

/** A class-validator DTO class: its decorators are the schema. */
export type DtoClass<T = unknown> = abstract new (...args: any[]) => T;

/**
 * How a schema may be given (to `@Tool`, `addTool` or `registerTool`): plain JSON Schema (published unaltered),
 * a zod v4 schema, any Standard JSON Schema, or a class-validator DTO class.
 */
export type McpSchema = JsonSchema | StandardJsonSchemaSource | ZodSchemaSource | DtoClass;

/**
 * The arguments a handler receives for an input schema: the schema's output type for zod and Standard Schema
 * (the handler gets what the schema's own validation returns), the DTO's properties for a class, and `any`
 * for plain JSON Schema, which TypeScript cannot read.
 */
export type InferSchemaInput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : any
  : S extends DtoClass<infer T>
    ? T
    : any;
