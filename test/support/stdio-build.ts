import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withDirLock } from './dir-lock.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = resolve(ROOT, 'build/stdio-e2e');
const LOCK = resolve(ROOT, 'build/stdio-e2e.lock');

/** Paths of the built stdio entry points that the process tests spawn. */
export const STDIO_ENTRIES = {
  conformance: resolve(OUT, 'examples/conformance/stdio.js'),
  basic: resolve(OUT, 'examples/basic/stdio.js'),
  fixture: resolve(OUT, 'test/support/stdio-fixture.js'),
  twoServers: resolve(OUT, 'test/support/stdio-two-servers.js'),
  gateway: resolve(OUT, 'test/support/stdio-gateway.js'),
};

/**
 * Compiles the stdio entry points (and only what they import) to build/stdio-e2e, incrementally, so a run with
 * nothing changed costs a few seconds. Jest runs spec files in parallel workers: a lock directory makes them
 * build one at a time, and the second build finds nothing to do.
 */
export async function buildStdioEntries(): Promise<void> {
  mkdirSync(resolve(ROOT, 'build'), { recursive: true });
  await withDirLock(LOCK, async () => {
    const run = promisify(execFile);
    const compile = () =>
      run(
        process.execPath,
        [resolve(ROOT, 'node_modules/typescript/bin/tsc'), '-p', resolve(ROOT, 'test/support/tsconfig.stdio.json')],
        { cwd: ROOT },
      );
    await compile();
    // An incremental build trusts its build info: outputs removed behind its back are not emitted again.
    if (!Object.values(STDIO_ENTRIES).every((entry) => existsSync(entry))) {
      rmSync(resolve(OUT, '.tsbuildinfo'), { force: true });
      await compile();
    }
    // The hand-written CommonJS files of src/, which tsc never emits (as `npm run build:all` does).
    await run(process.execPath, [resolve(ROOT, 'scripts/copy-js-sources.mjs'), resolve(OUT, 'src')], { cwd: ROOT });
  });
}
