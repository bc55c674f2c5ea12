import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { mcpHeaders, mcpMessage } from '../../src/testing/index.js';
import { nestCli } from '../clients/support/nest-cli.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

// nest-cli.json at the root: the examples build and run the way a Nest developer expects (`nest build basic`).
describe('nest-cli.json', () => {
  let nest: string;
  beforeAll(async () => {
    nest = await nestCli();
  }, 600_000);

  it('`nest build basic` compiles the example with the package loader assets, and the output serves MCP', async () => {
    // Only what this test checks the build makes: other suites' builds share build/ (build/stdio-e2e) meanwhile.
    for (const output of ['build/src', 'build/examples/basic']) rmSync(output, { recursive: true, force: true });
    const build = spawnSync(process.execPath, [nest, 'build', 'basic'], { encoding: 'utf8', timeout: 240_000 });
    expect(build.stderr + build.stdout).toBe('');
    expect(build.status).toBe(0);
    expect(existsSync('build/src/auth/tokens/jose-loader.cjs')).toBe(true);

    const port = await freePort();
    const child = spawn(process.execPath, ['build/examples/basic/main.js'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('MCP server listening') && resolve());
        child.once('exit', (code) => reject(new Error(`the example exited with ${code}`)));
      });
      const body = mcpMessage('server/discover');
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: mcpHeaders(body),
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result: { instructions: string } }).result.instructions).toBe(
        'Weather lookups and small utilities.',
      );
    } finally {
      child.kill();
    }
  }, 300_000);
});
