import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect, createServer } from 'node:net';

/** The machine's Redis, which every test shares: each test keeps to keys under its own `testKeyPrefix()`. */
export const MACHINE_REDIS_URL = 'redis://127.0.0.1:6379';

/** A key prefix no other test (or helper) uses. */
export function testKeyPrefix(): string {
  return `mcp-test:${randomUUID()}:`;
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** True when something on the port answers PING with PONG. */
export function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/**
 * A `redis-server` of the test's own, on a port of its own, with nothing persisted: the fault tests stop it
 * (SIGKILL, as a crash), pause it (SIGSTOP, as a hung server) and start it again on the same port.
 */
export class RedisServerProcess {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  /** A server on a free port, not started yet (so a test can begin with Redis unreachable). */
  static async onFreePort(): Promise<RedisServerProcess> {
    return new RedisServerProcess(await freePort());
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(this.port))) {
      if (child.exitCode !== null) throw new Error(`redis-server on port ${this.port} exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Kills the server at once, as a crash would, and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Freezes the server: connections stay open and nothing answers. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }
}
