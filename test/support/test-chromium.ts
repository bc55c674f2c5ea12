import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { brotliDecompressSync, createBrotliDecompress } from 'node:zlib';
import { findChromium } from '../../src/testing/find-chromium.js';
import { withDirLock } from './dir-lock.js';

const require = createRequire(import.meta.url);

/**
 * The Chromium the browser tests run: the one `renderToolUi` would find (CHROMIUM_PATH, Playwright's browsers, the
 * system's), else the headless shell that the dev dependency `@sparticuz/chromium` ships inside its package
 * (Linux x64), so that `npm install && npm test` passes on a machine with no browser. `MCP_TEST_CHROMIUM=packaged`
 * skips the machine's browsers, as on a machine with none: CI runs the suite so, to show that `npm test` needs no
 * browser installed.
 */
export async function testChromium(): Promise<string> {
  const found = process.env.MCP_TEST_CHROMIUM === 'packaged' ? undefined : findChromium();
  if (found) return found;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      'The browser tests found no Chromium, and the packaged one runs on Linux x64 only: install one ' +
        '(`npx playwright install chromium`, `apt-get install chromium`, Google Chrome) or set CHROMIUM_PATH',
    );
  return packagedChromium();
}

/**
 * The package's headless shell, unpacked once per version into the system's temporary folder, under a lock, as
 * jest runs the browser specs in parallel workers. Its binary and the NSS libraries it links (which a machine
 * without a browser rarely has) come brotli-compressed; a launcher script puts those libraries first on the
 * loader's path, so the shell runs whatever the machine has installed. Answers the launcher.
 */
async function packagedChromium(): Promise<string> {
  const packageDir = resolve(dirname(require.resolve('@sparticuz/chromium')), '../..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const folder = join(tmpdir(), `nestjs-mcp-chromium-${version}`);
  const launcher = join(folder, 'launch-chromium');
  mkdirSync(folder, { recursive: true });
  await withDirLock(`${folder}.lock`, async () => {
    if (existsSync(launcher)) return;
    const binary = join(folder, 'chromium');
    const partial = `${binary}.${process.pid}`;
    await pipeline(
      createReadStream(join(packageDir, 'bin/chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial),
    );
    chmodSync(partial, 0o755);
    renameSync(partial, binary);
    // lib/: libnss3, libnspr4, libexpat and their companions.
    rmSync(join(folder, 'lib'), { recursive: true, force: true });
    execFileSync('tar', ['-x', '-C', folder], {
      input: brotliDecompressSync(readFileSync(join(packageDir, 'bin/al2023.tar.br'))),
    });
    const script = `#!/bin/sh\nLD_LIBRARY_PATH="${folder}/lib\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "${binary}" "$@"\n`;
    writeFileSync(`${launcher}.${process.pid}`, script, { mode: 0o755 });
    renameSync(`${launcher}.${process.pid}`, launcher);
  });
  return launcher;
}
