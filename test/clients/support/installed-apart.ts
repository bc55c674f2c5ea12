import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withDirLock } from '../../support/dir-lock.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SOURCES = resolve(ROOT, 'test/clients/installed-apart');
// Outside test/ (jest's root) and ignored by git, like .node-versions/ that holds the Node they run on.
const INSTALLS = resolve(ROOT, '.node-clients');
const run = promisify(execFile);

/** The clients that need Node 22 or a dependency tree of their own: one folder each under installed-apart/. */
export type ApartClient = 'mcp-use' | 'strands' | 'voltagent';

/**
 * Installs a client's pinned dependencies (its own package.json and package-lock.json, `npm ci` on Node 22 from
 * scripts/with-node.sh) into .node-clients/<client>-<digest of its lock>, once: a later run with the same lock
 * finds it there. Jest runs spec files in parallel workers: a lock makes them install Node 22 one at a time,
 * another each client, and the install goes to a folder of its own, renamed into place once complete.
 */
async function install(client: ApartClient): Promise<string> {
  const source = resolve(SOURCES, client);
  const digest = createHash('sha256')
    .update(readFileSync(resolve(source, 'package-lock.json')))
    .digest('hex')
    .slice(0, 12);
  const target = resolve(INSTALLS, `${client}-${digest}`);
  mkdirSync(INSTALLS, { recursive: true });
  await withDirLock(resolve(INSTALLS, '.node22.lock'), () => withNode22(['node', '--version'], ROOT, 600_000));
  await withDirLock(resolve(INSTALLS, `.${client}.lock`), async () => {
    if (existsSync(resolve(target, 'node_modules/.package-lock.json'))) return;
    const scratch = resolve(INSTALLS, `.${client}-${process.pid}`);
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch);
    try {
      for (const file of ['package.json', 'package-lock.json'])
        copyFileSync(resolve(source, file), resolve(scratch, file));
      await withNode22(['npm', 'ci', '--no-audit', '--no-fund', '--loglevel=error'], scratch, 600_000);
      rmSync(target, { recursive: true, force: true });
      renameSync(scratch, target);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    // Installs of an earlier lock of this client are of no further use.
    for (const entry of readdirSync(INSTALLS))
      if (entry.startsWith(`${client}-`) && entry !== basename(target))
        rmSync(resolve(INSTALLS, entry), { recursive: true, force: true });
  });
  // The driver is copied in each run (bare imports resolve from the folder the script is in), so changing it
  // needs no new install.
  copyFileSync(resolve(source, 'client.mjs'), resolve(target, 'client.mjs'));
  return target;
}

// No traffic leaves the machine: mcp-use sends anonymous usage events to hosts of its own unless told not to,
// and VoltAgent fetches a registry of model providers from the web whenever NODE_ENV is not production.
const OFFLINE = { MCP_USE_ANONYMIZED_TELEMETRY: 'false', NODE_ENV: 'production' };

function withNode22(command: string[], cwd: string, timeout: number) {
  return run('bash', [resolve(ROOT, 'scripts/with-node.sh'), '22', ...command], {
    cwd,
    timeout,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, ...OFFLINE, NODE_OPTIONS: '' },
  });
}

/** Installs every client that runs apart, side by side (each its own folder, lock and registry downloads). */
export async function installApartClients(): Promise<void> {
  const clients = readdirSync(SOURCES) as ApartClient[];
  await Promise.all(clients.map((client) => install(client)));
}

/**
 * Runs the client's driver (installed-apart/<client>/client.mjs) on Node 22 with `input` as its one argument, and
 * returns what it printed on its last line of stdout, parsed: what the client saw, for the test to assert on.
 */
export async function runApartClient<T>(client: ApartClient, input: Record<string, unknown>): Promise<T> {
  const folder = await install(client);
  let stdout: string;
  try {
    ({ stdout } = await withNode22(['node', resolve(folder, 'client.mjs'), JSON.stringify(input)], folder, 60_000));
  } catch (error) {
    const { stdout: out, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${client} driver failed: ${(error as Error).message}\n${out ?? ''}\n${stderr ?? ''}`, {
      cause: error,
    });
  }
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines.at(-1)!) as T;
}
