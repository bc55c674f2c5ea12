import type ts from 'typescript';
import { before } from './compiler-plugin.js';
import type { McpPluginOptions } from './plugin-options.js';

export { before } from './compiler-plugin.js';
export { ReadonlyVisitor } from './readonly-visitor.js';
export type { McpPluginOptions } from './plugin-options.js';

/** What the plugin reads of ts-jest's compiler (its `TsCompiler`). */
interface TsJestCompiler {
  program?: ts.Program;
  _languageService?: ts.LanguageService;
}

// ts-jest reads an AST transformer module's `name`, `version` and `factory`:
// `astTransformers: { before: ['nestjs-mcp/plugin'] }` in the jest config runs the plugin on the specs' imports.
export const name = 'nestjs-mcp/plugin';
export const version = 1;
export function factory(compiler: TsJestCompiler, options?: McpPluginOptions) {
  // ts-jest calls this for each file it emits. Its `program` is the first one its language service built; a
  // compile whose options differ from the tsconfig's (it turns `nodenext` into `commonjs` or `esnext`) emits
  // from a newer program, the one the language service holds now.
  return before(options, compiler._languageService?.getProgram() ?? compiler.program);
}
