import { chmodSync, createReadStream, createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { findChromium } from '../../src/testing/find-chromium.js';
import { withDirLock } from './dir-lock.js';

const require = createRequire(import.meta.url);

/**
 * The Chromium the browser tests run: the one `renderToolUi` would find (CHROMIUM_PATH, Playwright's browsers, the
 * system's), else the headless shell that the dev dependency `@sparticuz/chromium` ships inside its package
 * (Linux x64), so that `npm install && npm test` passes on a machine with no browser. Its binary comes
 * brotli-compressed; it is inflated once per version into the system's temporary folder, under a lock, as jest
 * runs the browser specs in parallel workers.
 */
export async function testChromium(): Promise<string> {
  const found = findChromium();
  if (found) return found;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      'The browser tests found no Chromium, and the packaged one runs on Linux x64 only: install one ' +
        '(`npx playwright install chromium`, `apt-get install chromium`, Google Chrome) or set CHROMIUM_PATH',
    );
  const packageDir = resolve(dirname(require.resolve('@sparticuz/chromium')), '../..');
  const { version } = require(join(packageDir, 'package.json')) as { version: string };
  const folder = join(tmpdir(), `nestjs-mcp-chromium-${version}`);
  const binary = join(folder, 'chromium');
  mkdirSync(folder, { recursive: true });
  await withDirLock(`${folder}.lock`, async () => {
    if (existsSync(binary)) return;
    const partial = `${binary}.${process.pid}`;
    await pipeline(
      createReadStream(join(packageDir, 'bin/chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial),
    );
    chmodSync(partial, 0o755);
    renameSync(partial, binary);
  });
  return binary;
}
