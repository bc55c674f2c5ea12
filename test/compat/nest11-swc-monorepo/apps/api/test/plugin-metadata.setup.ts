import { join } from 'node:path';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator';
import { ReadonlyVisitor } from 'nestjs-mcp/plugin';

// What `nest build` writes into apps/api/src/metadata.ts, written again for the specs, so that a spec run without
// a build first sees the schemas of the current sources.
export default function setup(): void {
  const source = join(process.cwd(), 'apps/api/src');
  new PluginMetadataGenerator().generate({
    visitors: [new ReadonlyVisitor({ pathToSource: source })],
    outputDir: source,
    tsconfigPath: 'apps/api/tsconfig.app.json',
  });
}
