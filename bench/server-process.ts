import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServerName } from './fixtures.js';

/**
 * Starts `server-child.js <server> <args…>` in its own process, with `env` added to this one's, and resolves
 * with the port it listens on once it says so over IPC.
 */
export function startServerChild(
  server: ServerName,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(new URL('./server-child.js', import.meta.url)), [server, ...args], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: ['--expose-gc'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${server} did not start within 30 s`)), 30_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve({ child, port: (message as { port: number }).port });
    });
    child.once('exit', (code) => reject(new Error(`${server} exited during start-up (code ${code})`)));
  });
}

/** Stops a server child (SIGTERM, then SIGKILL after 5 s) and resolves once it has exited. */
export function stopServerChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
