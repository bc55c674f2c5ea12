import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mcpMessage } from '../../src/testing/index.js';
import { TS_REGISTER } from './backend-process.js';

type Message = Record<string, any>;

/** A stdio app run from source in a process of its own, spoken to line by line as an MCP client does. */
export class StdioChild {
  /** Everything the process wrote to stderr so far. */
  stderr = '';
  private readonly replies = new Map<unknown, Message>();
  private nextId = 1;
  private partial = '';

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (this.partial + chunk).split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as Message;
        if ('id' in message) this.replies.set(message.id, message);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
  }

  /** Starts `main` with `env` added (and `args`), and resolves once it answers `server/discover`. */
  static async start(main: string, env: Record<string, string> = {}, args: string[] = []): Promise<StdioChild> {
    const child = spawn(process.execPath, ['--import', TS_REGISTER, main, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const app = new StdioChild(child);
    await app.call('server/discover', {}, 120_000);
    return app;
  }

  /** Sends one request and waits for its answer. */
  async call(method: string, params: Record<string, unknown>, waitMs = 30_000): Promise<Message> {
    const id = this.nextId++;
    this.child.stdin.write(`${JSON.stringify(mcpMessage(method, params, { id }))}\n`);
    const deadline = Date.now() + waitMs;
    while (!this.replies.has(id)) {
      if (this.child.exitCode !== null) throw new Error(`the server exited (${this.child.exitCode}): ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no reply to ${method} #${id}; stderr: ${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.replies.get(id)!;
  }

  /** A tool's result. */
  async tool(name: string, args: Record<string, unknown> = {}): Promise<Message> {
    return (await this.call('tools/call', { name, arguments: args })).result;
  }

  /** Closes its stdin, as a client that goes away does, and resolves once it has exited. */
  async stop(): Promise<void> {
    this.child.stdin.end();
    if (this.child.exitCode === null) await once(this.child, 'exit');
  }
}
