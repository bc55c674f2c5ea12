import type ts from 'typescript';
import { before } from './compiler-plugin.js';
import type { McpPluginOptions } from './plugin-options.js';

export { before } from './compiler-plugin.js';
export { ReadonlyVisitor } from './readonly-visitor.js';
export type { McpPluginOptions } from './plugin-options.js';

// ts-jest reads an AST transformer module's `name`, `version` and `factory`:
// `astTransformers: { before: ['nestjs-mcp/plugin'] }` in the jest config runs the plugin on the specs' imports.
export const name = 'nestjs-mcp/plugin';
export const version = 1;
export function factory(compiler: { program?: ts.Program }, options?: McpPluginOptions) {
  return before(options, compiler.program);
}
