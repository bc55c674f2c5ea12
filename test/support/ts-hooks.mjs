/**
 * Module hooks that let a child process run this repository's TypeScript as it is, without a build: `.js`
 * imports of our own files resolve to the `.ts` beside them, and `.ts` files are transpiled one by one
 * (the project compiles with isolatedModules, so each file transpiles alone). Registered by ts-register.mjs.
 *
 * The slow tier starts dozens of these processes, each loading the same few hundred files: each transpiled file is
 * kept in node_modules/.cache under the hash of its source, so only the first process pays for TypeScript (which
 * is loaded only then).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const COMPILER_OPTIONS = {
  module: 'ESNext',
  target: 'ES2022',
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  inlineSourceMap: true,
};
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cacheDir = join(root, 'node_modules', '.cache', 'nestjs-mcp-ts-hooks');
// Another TypeScript may transpile differently: its version is part of every key.
const compiler = `${JSON.parse(readFileSync(join(root, 'node_modules', 'typescript', 'package.json'), 'utf8')).version} ${JSON.stringify(COMPILER_OPTIONS)}`;
let typescript;

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const candidate = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const fileName = fileURLToPath(url);
  const source = await readFile(fileName, 'utf8');
  // The file name is part of the key: the inline source map names it.
  const key = createHash('sha256').update(compiler).update(fileName).update(source).digest('hex');
  const cached = join(cacheDir, `${key}.js`);
  try {
    return { format: 'module', source: await readFile(cached, 'utf8'), shortCircuit: true };
  } catch {
    // Not transpiled yet.
  }
  typescript ??= (await import('typescript')).default;
  const { outputText } = typescript.transpileModule(source, {
    fileName,
    compilerOptions: typescript.convertCompilerOptionsFromJson(COMPILER_OPTIONS, root).options,
  });
  // Written aside and renamed, so a process starting beside this one reads a whole file or none.
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${cached}.${process.pid}.tmp`;
  await writeFile(partial, outputText);
  await rename(partial, cached);
  return { format: 'module', source: outputText, shortCircuit: true };
}
