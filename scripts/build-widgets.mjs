// Bundles each MCP Apps widget into one self-contained HTML file, as hosts require (they render it in a sandboxed
// iframe that may reach no origin the widget did not declare): esbuild bundles the widget's TypeScript and its
// npm imports (`App` from @modelcontextprotocol/ext-apps) into one script, which replaces the template's
// `<!-- widget script -->` marker. Everything comes from node_modules: nothing is fetched, so it works offline.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const MARKER = '<!-- widget script -->';

/** The example's widgets: the script, its HTML template, and where the bundled page goes. */
export const WIDGETS = [
  {
    entry: 'examples/apps/widget/card.ts',
    template: 'examples/apps/widget/card.html',
    outFile: 'build/widgets/card.html',
  },
];

/** Builds one widget page and returns its HTML. */
export async function buildWidget({ entry, template, outFile }) {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  // `</script` inside the code would end the inline element early.
  const script = bundle.outputFiles[0].text.replaceAll('</script', '<\\/script');
  const page = readFileSync(template, 'utf8');
  if (!page.includes(MARKER)) throw new Error(`${template}: no ${MARKER} marker to put the script at`);
  const html = page.replace(MARKER, () => `<script>${script}</script>`);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, html);
  return html;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const widget of WIDGETS) {
    const html = await buildWidget(widget);
    console.log(`${join(widget.outFile)}: ${html.length} bytes`);
  }
}
