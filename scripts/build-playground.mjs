// Bundles the playground page (playground/, Preact) into one self-contained HTML file: the script and the
// style are inlined, so the page needs nothing but the endpoint beside it, and the server allows exactly them
// by hash in the page's Content-Security-Policy. The MCP Apps view bridge (ext-apps and the zod it validates
// with, half of the code) is a second script, bridge.js, which the page loads only to show a tool's view.
// Everything comes from node_modules at build time: nothing is fetched at run time, and an app that does not
// enable the playground never reads the files.
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

/**
 * The page takes only `Protocol` and a few schemas of the SDK (through ext-apps' `AppBridge`), but the SDK's
 * client and core packages do not declare themselves free of side effects, so a bundler keeps every module they
 * reach (the whole client, its OAuth and JSON Schema validators): their modules only define things, so the page
 * keeps what it uses.
 */
const sdkWithoutSideEffects = {
  name: 'sdk-without-side-effects',
  setup(esbuild) {
    esbuild.onResolve({ filter: /.*/ }, async ({ path, importer, kind, resolveDir, pluginData }) => {
      if (pluginData?.sdk || !`${importer}\n${path}`.includes('@modelcontextprotocol')) return undefined;
      const resolved = await esbuild.resolve(path, { importer, kind, resolveDir, pluginData: { sdk: true } });
      if (resolved.errors.length > 0 || !SDK_PACKAGE.test(resolved.path)) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};
const SDK_PACKAGE = /[\\/]@modelcontextprotocol[\\/](client|core)[\\/]/;

/** The page's script and the view bridge's, as esbuild builds them; `metafile` adds what each input weighs. */
export function bundlePlayground({ metafile = false } = {}) {
  return build({
    entryPoints: { page: 'playground/main.tsx', bridge: 'playground/view-bridge.ts' },
    outdir: 'playground-out',
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    plugins: [englishOnlyZod, sdkWithoutSideEffects],
    write: false,
    metafile,
    logLevel: 'warning',
  });
}

/** Writes `<outDir>/index.html` and `<outDir>/bridge.js`; returns the size of each in bytes. */
export async function buildPlayground(outDir) {
  const bundle = await bundlePlayground();
  const output = (name) => bundle.outputFiles.find((file) => file.path.endsWith(`${sep}${name}.js`)).text;
  const style = await transform(readFileSync('playground/styles.css', 'utf8'), { loader: 'css', minify: true });
  // `</script` or `</style` inside the code would end the inline element early.
  const script = output('page').replaceAll('</script', '<\\/script');
  const html = readFileSync('playground/page.html', 'utf8')
    .replace(STYLE_MARKER, () => `<style>${style.code.replaceAll('</style', '<\\/style')}</style>`)
    .replace(SCRIPT_MARKER, () => `<script>${script}</script>`);
  const bridge = output('bridge');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'index.html'), html);
  writeFileSync(join(outDir, 'bridge.js'), bridge);
  return { page: Buffer.byteLength(html), bridge: Buffer.byteLength(bridge) };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = process.argv[2] ?? 'dist/playground';
  const sizes = await buildPlayground(outDir);
  console.log(
    `${join(outDir, 'index.html')}: ${sizes.page} bytes; ${join(outDir, 'bridge.js')}: ${sizes.bridge} bytes`,
  );
}
