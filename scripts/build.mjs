// Builds the package twice from one source: ESM for Nest 12 apps (dist/esm) and CommonJS for Nest 11 apps
// (dist/cjs). The package.json dropped into dist/cjs makes Node read those .js files as CommonJS although the
// package itself is "type": "module"; the conditional `exports` picks one build per importer. Hand-written
// .cjs files in src/ are copied into both as they are.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { copyJsSources } from './copy-js-sources.mjs';

rmSync('dist', { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'tsconfig.build.cjs.json']) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { stdio: 'inherit' });
}
copyJsSources('dist/esm');
copyJsSources('dist/cjs');
writeFileSync('dist/cjs/package.json', '{\n  "type": "commonjs"\n}\n');
