import { join } from 'node:path';
import { installApart } from './installed-apart.js';

/**
 * The Nest CLI's `nest` script (11, the last on Node 20), with `@swc/cli` and `@swc/core` beside it for
 * `nest build -b swc`: installed apart (installed-apart/nest-cli) on first use, as the project's own install
 * needs none of it. Run from an app's folder, it compiles with that app's TypeScript and plugins.
 */
export async function nestCli(): Promise<string> {
  return join(await installApart('nest-cli'), 'node_modules/@nestjs/cli/bin/nest.js');
}
