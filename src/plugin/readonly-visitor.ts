import { relative } from 'node:path';
import ts from 'typescript';
import { jsonLiteral } from './json-literal.js';
import { readClassMetadata } from './mcp-method-reader.js';
import { McpPluginError } from './mcp-plugin-error.js';
import type { McpPluginOptions } from './plugin-options.js';

/**
 * What the Nest CLI runs for the SWC builder (which has no type checker): it reads the program the CLI's type
 * check made and hands the metadata to the CLI's generator, which writes `metadata.ts` into the source root as
 * `{ "<plugin name>": { mcp: [[import('./file.js'), { ClassName: { method: {...} } }]] } }`. The app loads it
 * with `McpModule.loadPluginMetadata(metadata)` before it starts.
 */
export class ReadonlyVisitor {
  /** Set by the CLI to the plugin's name as nest-cli.json spells it: the metadata file's key. */
  key = 'nestjs-mcp/plugin';
  readonly typeImports: Record<string, string> = {};
  private readonly files = new Map<string, Record<string, ts.ObjectLiteralExpression>>();
  private readonly pathToSource: string;

  constructor(options: McpPluginOptions) {
    if (!options.pathToSource) throw new Error('nestjs-mcp/plugin: "pathToSource" must be given for SWC builds.');
    this.pathToSource = options.pathToSource;
  }

  visit(program: ts.Program, sourceFile: ts.SourceFile): void {
    try {
      this.read(program, sourceFile);
    } catch (error) {
      // The CLI runs visitors after its type check has settled, and drops what they throw: the refusal is
      // printed and fails the build here.
      if (error instanceof McpPluginError) {
        process.stderr.write(`${error.message}\n`);
        process.exitCode = 1;
      }
      throw error;
    }
  }

  private read(program: ts.Program, sourceFile: ts.SourceFile): void {
    const checker = program.getTypeChecker();
    const classes: Record<string, ts.ObjectLiteralExpression> = {};
    for (const statement of sourceFile.statements) {
      if (!ts.isClassDeclaration(statement)) continue;
      const metadata = readClassMetadata(statement, checker);
      if (!metadata) continue;
      const exported = ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Export;
      const isDefault = ts.getCombinedModifierFlags(statement) & ts.ModifierFlags.Default;
      if (!exported || isDefault || !statement.name) {
        throw new McpPluginError(
          `nestjs-mcp/plugin: ${statement.name?.text ?? 'a class'} in ${sourceFile.fileName} has MCP methods but ` +
            'is not a named export, which the SWC build metadata file must import.',
        );
      }
      classes[statement.name.text] = jsonLiteral(metadata) as ts.ObjectLiteralExpression;
    }
    if (Object.keys(classes).length > 0) this.files.set(sourceFile.fileName, classes);
    else this.files.delete(sourceFile.fileName);
  }

  collect(): Record<string, Array<[ts.CallExpression, Record<string, ts.ObjectLiteralExpression>]>> {
    return {
      mcp: [...this.files].map(([fileName, classes]) => [
        ts.factory.createCallExpression(
          ts.factory.createToken(ts.SyntaxKind.ImportKeyword) as ts.Expression,
          undefined,
          [ts.factory.createStringLiteral(this.importPath(fileName))],
        ),
        classes,
      ]),
    };
  }

  /** `./tools/weather.tools.js`: the compiled file, which resolves as CommonJS and as ESM. */
  private importPath(fileName: string): string {
    const path = relative(this.pathToSource, fileName)
      .replaceAll('\\', '/')
      .replace(/\.[cm]?tsx?$/, '.js');
    return path.startsWith('.') ? path : `./${path}`;
  }
}
