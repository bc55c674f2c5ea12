import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { McpConfigurationError } from '../server/errors/configuration-error.js';
import {
  NODE_OPTION_TOO_OLD,
  NODE_TOO_OLD,
  REFEREE_NOT_AT,
  REFEREE_PACKAGE,
  REFEREE_NOT_INSTALLED,
  REFEREE_WITHOUT_CLI,
  SCENARIO_RAN_NO_CHECKS,
} from './testing-messages.js';

/** The referee release the library is measured with: scripts/conformance.mjs installs the same one. */
const REFEREE_VERSION = '0.2.0-alpha.12';
/** The referee's CLI imports `fs.globSync`, which Node 22 added; its package.json declares no `engines`. */
const REFEREE_NODE_MAJOR = 22;

export type ConformanceStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';

/** One check of a scenario, as the referee judged it. */
export interface ConformanceCheck {
  id: string;
  status: ConformanceStatus;
  description?: string;
  /** Why the check is not SUCCESS, in the referee's words. */
  message?: string;
}

/** The referee's CLI and the Node binary that runs it. */
export interface Referee {
  cli: string;
  node: string;
}

/**
 * The referee: at `referee` (its package folder or its CLI file) when given, else resolved from the project in
 * `process.cwd()`, as the project's own `require` would. It is the user's optional dependency, never ours.
 */
export function findReferee(referee: string | undefined, node: string | undefined): Referee {
  const manifest = referee === undefined ? resolveFromProject() : manifestAt(resolve(referee));
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> };
  const bin = pkg.bin?.conformance;
  const cli =
    referee !== undefined && statSync(resolve(referee)).isFile()
      ? resolve(referee)
      : join(dirname(manifest), bin ?? '');
  if (!bin || !existsSync(cli))
    throw new McpConfigurationError(REFEREE_WITHOUT_CLI(dirname(manifest), REFEREE_VERSION));
  return { cli, node: refereeNode(node) };
}

function resolveFromProject(): string {
  try {
    return createRequire(join(process.cwd(), 'package.json')).resolve(`${REFEREE_PACKAGE}/package.json`);
  } catch {
    throw new McpConfigurationError(REFEREE_NOT_INSTALLED(process.cwd(), REFEREE_VERSION));
  }
}

/** The referee's package.json at or above `path` (a package folder, or a file inside one). */
function manifestAt(path: string): string {
  for (let dir = existsSync(path) && statSync(path).isFile() ? dirname(path) : path; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === REFEREE_PACKAGE
    )
      return manifest;
    if (dirname(dir) === dir) throw new McpConfigurationError(REFEREE_NOT_AT(path, REFEREE_VERSION));
  }
}

/** The Node binary for the referee: `node` when given, else this process's, if either is recent enough. */
function refereeNode(node: string | undefined): string {
  const version =
    node === undefined ? process.version : (spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '');
  if (Number(/^v(\d+)\./.exec(version)?.[1]) >= REFEREE_NODE_MAJOR) return node ?? process.execPath;
  if (node !== undefined) throw new McpConfigurationError(NODE_OPTION_TOO_OLD(node, version, REFEREE_NODE_MAJOR));
  throw new McpConfigurationError(NODE_TOO_OLD(process.version, REFEREE_NODE_MAJOR));
}

/**
 * Runs one server scenario at `era` into a folder of its own and returns its checks. The referee runs as a child
 * process, never synchronously: the app under test answers it from this process's event loop.
 */
export async function runScenario(
  referee: Referee,
  run: { url: string; scenario: string; era: string; outDir: string },
): Promise<ConformanceCheck[]> {
  await mkdir(run.outDir, { recursive: true });
  const { url, scenario, era, outDir } = run;
  const args = [referee.cli, 'server', '--url', url, '--scenario', scenario, '--spec-version', era, '-o', outDir];
  const output = await runCli(referee.node, args);
  // Results land in <outDir>/server-<scenario>-<time>/checks.json; a scenario the referee does not know, or one
  // it skips at this era, leaves none, and its output says why.
  const file = readdirSync(run.outDir)
    .map((name) => join(run.outDir, name, 'checks.json'))
    .find((path) => existsSync(path));
  if (!file) throw new McpConfigurationError(SCENARIO_RAN_NO_CHECKS(run.scenario, run.era, output.trim().slice(-600)));
  const checks = JSON.parse(readFileSync(file, 'utf8')) as Array<ConformanceCheck & { errorMessage?: string }>;
  return checks.map(({ id, status, description, errorMessage }) => ({
    id,
    status,
    description,
    ...(errorMessage ? { message: errorMessage } : {}),
  }));
}

/** The referee's exit code says only that some check failed; what failed is in the files. Its output is kept for errors. */
function runCli(node: string, args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-4096);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', () => resolvePromise(output));
  });
}
