import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The path of the package's tarball: the one CI packed once from its clean clone (`NESTJS_MCP_TARBALL`), or else
 * `npm pack` of a checkout holding only the tracked files (no dist/, no build output), made in `scratch`.
 */
export function packedTarball(scratch: string): string {
  return process.env.NESTJS_MCP_TARBALL ?? join(scratch, packCleanCheckout(scratch));
}

/** What a user installs: `npm pack` of a checkout of the tracked files into `scratch`; the tarball's file name. */
function packCleanCheckout(scratch: string): string {
  const checkout = join(scratch, 'checkout');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  for (const file of tracked.filter((path) => path && existsSync(join(ROOT, path)))) {
    mkdirSync(dirname(join(checkout, file)), { recursive: true });
    cpSync(join(ROOT, file), join(checkout, file));
  }
  if (existsSync(join(checkout, 'dist'))) throw new Error('the clean checkout holds a dist/');
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  execFileSync('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: checkout, stdio: 'ignore' });
  return readdirSync(scratch).find((name) => name.endsWith('.tgz')) ?? '';
}
