// `npm run build:all` compiles the examples with plain tsc, which runs no transformer, so nestjs-mcp/plugin
// works there as it does for an SWC build: the Nest CLI's generator, given the plugin's ReadonlyVisitor, writes
// what the plugin derives into each example's plugin-metadata.ts, which the example loads with
// `McpModule.loadPluginMetadata`. Run after tsc (the visitor is read from build/src); the file is committed, so
// the examples type-check and run in the tests as they are, and rewritten and recompiled here on each build: a
// changed tool type shows as a diff of the file.
import { writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
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
  const own = {
    key: visitor.key,
    typeImports: visitor.typeImports,
    visit: (programRef, sourceFile) => {
      if (resolve(sourceFile.fileName).startsWith(source + sep)) visitor.visit(programRef, sourceFile);
    },
    collect: () => visitor.collect(),
  };
  new PluginMetadataGenerator().generate({
    visitors: [own],
    outputDir: source,
    filename: FILENAME,
    tsProgramRef: program,
  });
  // The printer declares the type imports of other plugins' metadata (`const t = {}`), none for this one: an unused
  // local the examples' `noUnusedLocals` refuses.
  const generated = ts.sys.readFile(join(source, FILENAME)).replace(/^ *const t = \{\};\n/m, '');
  writeFileSync(join(source, FILENAME), generated);
  // build/ is ESM (the package is `"type": "module"`), which transpileModule, reading no package.json, learns from
  // the extension.
  const { outputText } = ts.transpileModule(generated, {
    compilerOptions: config.options,
    fileName: FILENAME.replace(/\.ts$/, '.mts'),
  });
  writeFileSync(join('build', folder, FILENAME.replace(/\.ts$/, '.js')), outputText);
}
