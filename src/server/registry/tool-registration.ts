import type { JsonSchema } from '../../protocol/mcp-types.js';
import { convertSchema } from '../schema/schema-converter.js';
import type { InferSchemaInput, McpSchema } from '../schema/mcp-schema.js';
import { isStandardSchema, standardSchemaCheck } from '../schema/schema-check.js';
import type { ToolHandler, ToolRegistration, ToolSchemaChecks } from './tool-registry.js';

/** A tool without an `inputSchema` takes no arguments. */
const NO_ARGUMENTS = { type: 'object', additionalProperties: false } as const;

/**
 * A tool as `addTool` takes it: the schemas in any style `@Tool` accepts (JSON Schema, zod, Standard Schema, a
 * DTO class), with the handler's arguments typed from the input schema.
 */
export interface McpToolRegistration<S extends object = JsonSchema> extends Omit<
  ToolRegistration,
  'inputSchema' | 'outputSchema' | 'handler'
> {
  /** Default: no arguments. */
  inputSchema?: S;
  /** When given, the result is validated against it and sent as `structuredContent` (plus a JSON text block). */
  outputSchema?: McpSchema;
  handler: ToolHandler<InferSchemaInput<S>>;
}

/**
 * The registry's form of a tool: both schemas as JSON Schema, plus the checks of those given as a Standard
 * Schema (zod and others), which validate and shape values themselves.
 */
export function toToolRegistration({ inputSchema, outputSchema, ...rest }: McpToolRegistration<object>): {
  registration: ToolRegistration;
  checks: ToolSchemaChecks;
} {
  return {
    registration: {
      ...rest,
      inputSchema: inputSchema === undefined ? { ...NO_ARGUMENTS } : convertSchema(inputSchema as McpSchema, 'input'),
      outputSchema: outputSchema === undefined ? undefined : convertSchema(outputSchema, 'output'),
    },
    checks: {
      input: isStandardSchema(inputSchema) ? standardSchemaCheck(inputSchema) : undefined,
      output: isStandardSchema(outputSchema) ? standardSchemaCheck(outputSchema) : undefined,
    },
  };
}
