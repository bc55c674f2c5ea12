import type { LineSink } from './mcp-stdio-driver.js';

/** The real stdout, kept for MCP messages, and how to give it back to everyone else. */
export interface StdoutGuard {
  readonly sink: LineSink;
  restore(): void;
}

/**
 * Reserves stdout for MCP messages: anything else that writes to it (`console.log`, Nest's `ConsoleLogger`,
 * which prints `log` and `warn` there, a library's progress output) goes to stderr instead, since a single stray
 * line corrupts the stream for the client. Redirecting the stream's `write` catches every such writer, where
 * swapping loggers would catch only the ones we know of.
 */
export function guardStdout(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): StdoutGuard {
  const write = stdout.write;
  const sink: LineSink = { write: write.bind(stdout) as LineSink['write'] };
  stdout.write = stderr.write.bind(stderr) as typeof stdout.write;
  return {
    sink,
    restore: () => {
      stdout.write = write;
    },
  };
}
