import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { installApart } from './installed-apart.js';

const run = promisify(execFile);

/**
 * Runs the MCP Inspector 2.12 CLI headless, as a user would (`mcp-inspector --cli URL --method …`), in its own
 * process with a throw-away HOME (it writes `~/.mcp-inspector`), and returns what it printed as JSON.
 */
export async function inspectorCli(url: string, args: string[]): Promise<Record<string, unknown>> {
  // Installed apart (installed-apart/inspector), on first use.
  const launcher = join(await installApart('inspector'), 'node_modules/mcp-inspector/clients/launcher/build/index.js');
  const home = await mkdtemp(join(tmpdir(), 'inspector-home-'));
  try {
    const { stdout } = await run(
      process.execPath,
      [launcher, '--cli', url, '--transport', 'http', '--format', 'json', '-q', ...args],
      {
        env: { ...process.env, HOME: home },
        timeout: 60_000,
      },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
