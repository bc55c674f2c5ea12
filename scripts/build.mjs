// Builds the package twice from one source: ESM for Nest 12 apps (dist/esm) and CommonJS for Nest 11 apps
// (dist/cjs). The package.json dropped into dist/cjs makes Node read those .js files as CommonJS although the
// package itself is "type": "module"; the conditional `exports` picks one build per importer. Hand-written
// .cjs files in src/ are copied into both as they are.
//
// The ESM build is then bundled: Node's ESM loader pays for every module it resolves, reads and links (a stdio
// server loading a hundred and fifty small modules spends a third of its start-up there), while CommonJS loads
// cheaply and stays as tsc emits it. esbuild bundles tsc's output, not the TypeScript, because Nest's dependency
// injection reads the `design:paramtypes` metadata that only tsc emits; each entry point of the exports map is
// one file, and what several share sits in shared chunks, so a class is one class whichever entry point imported it.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { buildPlayground } from './build-playground.mjs';
import { copyJsSources } from './copy-js-sources.mjs';

const ESM = 'dist/esm';
const ENTRY_POINTS = ['index', 'core/index', 'testing/index', 'redis/index', 'plugin/index', 'bullmq/index'];
// Stands for the build's root in an import of a hand-written .cjs file until the importing file's place is known.
const ROOT_MARK = '@nestjs-mcp-build-root@/';

rmSync('dist', { recursive: true, force: true });
// The two compilations share nothing and tsc uses one core: side by side they take the time of one.
await Promise.all(
  ['tsconfig.build.json', 'tsconfig.build.cjs.json'].map((project) =>
    promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project]).catch((error) => {
      process.stdout.write(error.stdout ?? '');
      throw new Error(`tsc -p ${project} failed`);
    }),
  ),
);
copyJsSources(ESM);
copyJsSources('dist/cjs');
writeFileSync('dist/cjs/package.json', '{\n  "type": "commonjs"\n}\n');

const bundled = await build({
  entryPoints: Object.fromEntries(ENTRY_POINTS.map((entry) => [entry, join(ESM, `${entry}.js`)])),
  outdir: ESM,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // No `keepNames`: it wraps every function expression in a call that defines its name, so each closure a request
  // makes pays for one (tens of thousands of instructions a call). The classes whose own name esbuild changed get
  // it back below.
  keepNames: false,
  chunkNames: 'chunks/[name]-[hash]',
  write: false,
  logLevel: 'warning',
  plugins: [
    {
      // The .cjs files stay files of their own (they `require` relative to where they sit), so their imports
      // are rewritten to the place of each output file that imports them.
      name: 'hand-written-cjs',
      setup(esbuild) {
        esbuild.onResolve({ filter: /\.cjs$/ }, ({ path, resolveDir }) => ({
          path: ROOT_MARK + relative(resolve(ESM), resolve(resolveDir, path)),
          external: true,
        }));
      },
    },
  ],
});

// The classes of the source, by name, read from tsc's output before the bundles take its place.
const classNames = new Set();
for (const entry of readdirSync(ESM, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
  const file = join(entry.parentPath, entry.name);
  for (const [, name] of readFileSync(file, 'utf8').matchAll(/\bclass ([\w$]+)/g)) classNames.add(name);
  rmSync(file);
}
for (const { path, text } of bundled.outputFiles) {
  const root = relative(dirname(path), resolve(ESM)) || '.';
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, restoreClassNames(text.replaceAll(ROOT_MARK, `${root}/`), path, classNames));
}

/**
 * A class's `name` is what Nest prints in its logs and errors ("McpModule dependencies initialized", "can't resolve
 * dependencies of McpExplorer") and what `util.inspect` prints before an error's message. Bundling, esbuild gives a
 * class expression's own binding a new name when it clashes with one of the chunk's top-level names (tsc writes a
 * decorated class as `let McpModule = class McpModule {`, which becomes `class McpModule2`) or when the class
 * refers to itself in its body (`class _McpError`), and without `keepNames` that binding is the class's name. Each
 * such binding is renamed back to the variable's name: inside the class body that name then means the class
 * itself, as in the source. A class stored under a name of esbuild's own making cannot be given its name back
 * here, so it fails the build.
 */
function restoreClassNames(text, path, classNames) {
  const head = /\b(?:var|let|const) ([\w$]+) = (?:[\w$]+ = )?class(?: ([\w$]+))?\b/g;
  const renamed = new Map();
  for (const [, name, own = 'extends'] of text.matchAll(head)) {
    if (!classNames.has(name))
      throw new Error(`${path}: a class is kept under ${name}, a name the source does not give it`);
    if (own !== 'extends' && own !== name) renamed.set(own, name);
  }
  let restored = text;
  for (const [own, name] of renamed) {
    // The binding esbuild made is unique in the chunk; a property or a string of that spelling is left alone.
    restored = restored.replace(new RegExp(`(?<![\\w$.'"])${own.replaceAll('$', '\\$')}(?![\\w$'"])`, 'g'), name);
  }
  return restored;
}

// The playground page (McpModule's `playground` option): one HTML file beside the two builds, read by both.
await buildPlayground('dist/playground');
