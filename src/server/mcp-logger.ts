import type { HandlerErrorReport } from './errors/handler-error-policy.js';

/**
 * Where the kernel writes what only the operator should read. `error` gets the failure itself, so each
 * logger renders it its own way (stderr prints it whole; Nest's `Logger` takes its stack).
 */
export interface McpLogger {
  error(message: string, error?: unknown): void;
  warn(message: string): void;
  log?(message: string): void;
}

/** Without a logger of its own, the kernel writes to stderr, as a Node library does. */
export const consoleLogger: McpLogger = {
  error: (message, error) => (error === undefined ? console.error(message) : console.error(message, error)),
  warn: (message) => console.error(message),
};

/** The server-side half of a redacted handler error: the detail, under the client's reference. */
export function logHandlerError(
  logger: McpLogger,
  error: unknown,
  { correlationId, method, name }: HandlerErrorReport,
): void {
  const what = `${method}${name ? ` "${name}"` : ''}`;
  const message = error instanceof Error ? error.message : String(error);
  logger.error(`${what} failed (reference ${correlationId}): ${message}`, error);
}
