// Bundles the playground page (playground/, Preact) into one self-contained HTML file: the script and the
// style are inlined, so the page needs nothing but the endpoint beside it, and the server allows exactly them
// by hash in the page's Content-Security-Policy. Everything comes from node_modules at build time: nothing is
// fetched at run time, and an app that does not enable the playground never reads the file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';

const SCRIPT_MARKER = '<!-- playground script -->';
const STYLE_MARKER = '<!-- playground style -->';

/**
 * ext-apps validates its messages with zod, whose namespace re-exports every locale's error messages (a third
 * of the page): the page keeps the English ones zod configures itself with, and drops the `z.locales` others.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      importer.includes(`${sep}zod${sep}`)
        ? { path: join(dirname(importer), '..', 'locales', 'en.js'), namespace: 'zod-en' }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'zod-en' }, ({ path }) => ({
      contents: `export { default as en } from ${JSON.stringify(path)};`,
      resolveDir: dirname(path),
    }));
  },
};

/** Writes `<outDir>/index.html` and returns its size in bytes. */
export async function buildPlayground(outDir) {
  const bundle = await build({
    entryPoints: ['playground/main.tsx'],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    plugins: [englishOnlyZod],
    write: false,
    logLevel: 'warning',
  });
  const style = await transform(readFileSync('playground/styles.css', 'utf8'), { loader: 'css', minify: true });
  // `</script` or `</style` inside the code would end the inline element early.
  const script = bundle.outputFiles[0].text.replaceAll('</script', '<\\/script');
  const html = readFileSync('playground/page.html', 'utf8')
    .replace(STYLE_MARKER, () => `<style>${style.code.replaceAll('</style', '<\\/style')}</style>`)
    .replace(SCRIPT_MARKER, () => `<script>${script}</script>`);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'index.html'), html);
  return Buffer.byteLength(html);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = process.argv[2] ?? 'dist/playground';
  console.log(`${join(outDir, 'index.html')}: ${await buildPlayground(outDir)} bytes`);
}
