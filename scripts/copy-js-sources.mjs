// Copies the hand-written CommonJS files of src/ (and their .d.cts types) next to the compiled output: tsc
// never emits them, and must not compile them (see src/auth/tokens/jose-loader.cjs for why).
import { cpSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export function copyJsSources(outDir, srcDir = 'src') {
  for (const entry of readdirSync(srcDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(cjs|d\.cts)$/.test(entry.name)) continue;
    const from = join(entry.parentPath, entry.name);
    cpSync(from, join(outDir, relative(srcDir, from)));
  }
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1])).href) copyJsSources(process.argv[2] ?? 'build/src');
