import { join } from 'node:path';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import { ReadonlyVisitor } from 'nestjs-mcp/plugin';

// Vitest compiles each file without a type checker, so nestjs-mcp/plugin cannot run in it: as for an SWC build,
// the Nest CLI's generator writes what the plugin derives into src/metadata.ts, which load-plugin-metadata.ts
// hands to the module before each spec.
export default function setup(): void {
  const source = join(process.cwd(), 'src');
  new PluginMetadataGenerator().generate({
    visitors: [new ReadonlyVisitor({ pathToSource: source })],
    outputDir: source,
    tsconfigPath: 'tsconfig.build.json',
  });
}
