import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './redis-server.js';

const REGISTER = fileURLToPath(new URL('./ts-register.mjs', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../examples/conformance/main.ts', import.meta.url));

/**
 * The conformance fixture (examples/conformance), or another app's `main.ts`, in a process of its own, run from
 * source.
 */
export class FixtureProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly origin: string,
  ) {}

  /** Starts `main` on a free loopback port with `env` added, and resolves once it listens. */
  static async start(env: Record<string, string>, main = FIXTURE): Promise<FixtureProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', REGISTER, main], {
      env: { ...process.env, ...env, PORT: String(port), NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A fixture left running would hold the test process open after the suite.
        child.kill('SIGKILL');
        reject(new Error('the fixture did not start within 60 s'));
      }, 60_000);
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening on')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the fixture exited with ${code} during start-up`));
      });
    });
    return new FixtureProcess(child, `http://127.0.0.1:${port}`);
  }

  /** Kills it with SIGKILL, as a crash or an OOM kill would: no shutdown hook runs. Resolves once it is gone. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const force = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(force);
  }
}
