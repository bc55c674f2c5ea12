import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { withDirLock } from '../../support/dir-lock.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SOURCES = resolve(ROOT, 'test/clients/installed-apart');
// Outside test/ (jest's root) and ignored by git, like .node-versions/ that holds the Node they run on.
const INSTALLS = resolve(ROOT, '.node-clients');
const run = promisify(execFile);

/** The clients that need Node 22 or a dependency tree of their own, run by a driver (client.mjs) on Node 22. */
const ON_NODE_22 = ['mcp-use', 'strands', 'voltagent'] as const;
export type ApartClient = (typeof ON_NODE_22)[number];
const onNode22 = (client: string): client is ApartClient => (ON_NODE_22 as readonly string[]).includes(client);
/**
 * The clients a few specs use, kept out of the project's own install so that a newcomer's `npm install` brings
 * only what the library and most tests need: installed on first use, then loaded into the test's process
 * (entry.mjs: what the spec imports) or run from their folder (the CLIs: the Inspector's, and the Nest CLI with
 * the SWC builder for the specs that run `nest build`).
 */
export type InProcessClient =
  | 'ai-sdk'
  | 'genkit'
  | 'huggingface'
  | 'inspector'
  | 'langchain'
  | 'mastra'
  | 'mcp-remote'
  | 'nest-cli'
  | 'openai-agents';

/**
 * Installs a client's pinned dependencies (its own package.json and package-lock.json, `npm ci`, on Node 22 from
 * scripts/with-node.sh for the drivers) into .node-clients/<client>-<digest of its lock>, once: a later run with
 * the same lock finds it there. Jest runs spec files in parallel workers: a lock makes them install Node 22 one
 * at a time, another each client, and the install goes to a folder of its own, renamed into place once complete.
 * Answers the folder.
 */
export async function installApart(client: ApartClient | InProcessClient): Promise<string> {
  const source = resolve(SOURCES, client);
  const digest = createHash('sha256')
    .update(readFileSync(resolve(source, 'package-lock.json')))
    .digest('hex')
    .slice(0, 12);
  const target = resolve(INSTALLS, `${client}-${digest}`);
  const npm = (args: string[], cwd: string) =>
    onNode22(client) ? withNode22(['npm', ...args], cwd, 600_000) : runOffline('npm', args, cwd, 600_000);
  mkdirSync(INSTALLS, { recursive: true });
  if (onNode22(client))
    await withDirLock(resolve(INSTALLS, '.node22.lock'), () => withNode22(['node', '--version'], ROOT, 600_000));
  await withDirLock(resolve(INSTALLS, `.${client}.lock`), async () => {
    if (existsSync(resolve(target, 'node_modules/.package-lock.json'))) return;
    const scratch = resolve(INSTALLS, `.${client}-${process.pid}`);
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch);
    try {
      for (const file of ['package.json', 'package-lock.json'])
        copyFileSync(resolve(source, file), resolve(scratch, file));
      await npm(['ci', '--no-audit', '--no-fund', '--loglevel=error'], scratch);
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
  // The driver or entry is copied in each run (bare imports resolve from the folder the script is in), so
  // changing it needs no new install.
  for (const file of ['client.mjs', 'entry.mjs'])
    if (existsSync(resolve(source, file))) copyFileSync(resolve(source, file), resolve(target, file));
  return target;
}

/**
 * What a client's entry.mjs exports, loaded into this process from its apart install. The spec names the type:
 * the packages are not in the project's node_modules for the compiler to read.
 */
export async function importApart<T>(client: InProcessClient): Promise<T> {
  const folder = await installApart(client);
  return (await import(pathToFileURL(resolve(folder, 'entry.mjs')).href)) as T;
}

// No traffic leaves the machine: mcp-use sends anonymous usage events to hosts of its own unless told not to,
// and VoltAgent fetches a registry of model providers from the web whenever NODE_ENV is not production.
const OFFLINE = { MCP_USE_ANONYMIZED_TELEMETRY: 'false', NODE_ENV: 'production' };

function withNode22(command: string[], cwd: string, timeout: number) {
  return runOffline('bash', [resolve(ROOT, 'scripts/with-node.sh'), '22', ...command], cwd, timeout);
}

function runOffline(command: string, args: string[], cwd: string, timeout: number) {
  return run(command, args, {
    cwd,
    timeout,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, ...OFFLINE, NODE_OPTIONS: '' },
  });
}

/** Installs every client that runs apart, side by side (each its own folder, lock and registry downloads). */
export async function installApartClients(): Promise<void> {
  const clients = readdirSync(SOURCES) as Array<ApartClient | InProcessClient>;
  await Promise.all(clients.map((client) => installApart(client)));
}

/**
 * Runs the client's driver (installed-apart/<client>/client.mjs) on Node 22 with `input` as its one argument, and
 * returns what it printed on its last line of stdout, parsed: what the client saw, for the test to assert on.
 */
export async function runApartClient<T>(client: ApartClient, input: Record<string, unknown>): Promise<T> {
  const folder = await installApart(client);
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
