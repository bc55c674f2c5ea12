// `npm run build:all` compiles the examples with plain tsc, which runs no transformer, so nestjs-mcp/plugin
// works there as it does for an SWC build: the plugin's ReadonlyVisitor reads each example's classes and this
// script prints what it collects into the example's plugin-metadata.ts, in the shape the Nest CLI's generator
// writes `metadata.ts` for an SWC build, which the example loads with `McpModule.loadPluginMetadata`. (The Nest
// CLI itself installs apart, for the specs that run `nest build`; those and the compat apps use its generator.)
// Run after tsc (the visitor is read from build/src); the file is committed, so the examples type-check and run
// in the tests as they are, and rewritten and recompiled here on each build: a changed tool type shows as a diff
// of the file.
import { writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import ts from 'typescript';

const EXAMPLES = ['examples/basic', 'examples/conformance'];
const FILENAME = 'plugin-metadata.ts';

const { ReadonlyVisitor } = await import(resolve('build/src/plugin/index.js'));
const config = ts.getParsedCommandLineOfConfigFile(
  'tsconfig.json',
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
);
const program = ts.createProgram(
  EXAMPLES.map((folder) => resolve(folder, 'main.ts')),
  config.options,
);
for (const folder of EXAMPLES) {
  const source = resolve(folder);
  const visitor = new ReadonlyVisitor({ pathToSource: source });
  // One example's file names only its own classes.
  for (const sourceFile of program.getSourceFiles())
    if (!sourceFile.isDeclarationFile && resolve(sourceFile.fileName).startsWith(source + sep))
      visitor.visit(program, sourceFile);
  const generated = printMetadata(visitor.key, visitor.collect());
  writeFileSync(join(source, FILENAME), generated);
  // build/ is ESM (the package is `"type": "module"`), which transpileModule, reading no package.json, learns from
  // the extension.
  const { outputText } = ts.transpileModule(generated, {
    compilerOptions: config.options,
    fileName: FILENAME.replace(/\.ts$/, '.mts'),
  });
  writeFileSync(join('build', folder, FILENAME.replace(/\.ts$/, '.js')), outputText);
}

/**
 * `export default async () => ({ [key]: { mcp: [[import('./file.js'), { Class: { method: {...} } }], ...] } })`,
 * with a block body and a return, as the Nest CLI's generator prints it.
 */
function printMetadata(key, collected) {
  const f = ts.factory;
  const files = Object.entries(collected).map(([name, entries]) =>
    f.createPropertyAssignment(
      f.createStringLiteral(name),
      f.createArrayLiteralExpression(
        entries.map(([importCall, classes]) =>
          f.createArrayLiteralExpression([
            importCall,
            f.createObjectLiteralExpression(
              Object.entries(classes).map(([className, methods]) =>
                f.createPropertyAssignment(f.createStringLiteral(className), methods),
              ),
            ),
          ]),
        ),
      ),
    ),
  );
  const body = f.createObjectLiteralExpression([
    f.createPropertyAssignment(f.createStringLiteral(key), f.createObjectLiteralExpression(files)),
  ]);
  const exported = f.createExportAssignment(
    undefined,
    undefined,
    f.createArrowFunction(
      [f.createToken(ts.SyntaxKind.AsyncKeyword)],
      undefined,
      [],
      undefined,
      f.createToken(ts.SyntaxKind.EqualsGreaterThanToken),
      f.createBlock([f.createReturnStatement(body)], true),
    ),
  );
  const file = ts.createSourceFile(FILENAME, '', ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  return `/* eslint-disable */\n${printer.printNode(ts.EmitHint.Unspecified, exported, file)}`;
}
