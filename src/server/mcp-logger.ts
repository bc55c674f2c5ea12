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

// C0 and C1 controls, DEL and the Unicode line and paragraph separators: what a terminal or a line-based log
// reader acts on (a newline starts a forged line, ESC starts an ANSI sequence).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A request-derived value (a name, an id, a URI, a message that quotes one) made safe for one log line: every
 * control character written as its escape (`\n`, `\u001b`), so no request can end a line or drive a terminal.
 */
export function logSafe(value: unknown): string {
  return String(value).replace(CONTROL, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The server-side half of a redacted handler error: the detail, under the client's reference. */
export function logHandlerError(
  logger: McpLogger,
  error: unknown,
  { correlationId, method, name }: { correlationId: string; method: string; name?: string },
): void {
  const what = `${logSafe(method)}${name ? ` "${logSafe(name)}"` : ''}`;
  const message = error instanceof Error ? error.message : String(error);
  logger.error(`${what} failed (reference ${correlationId}): ${logSafe(message)}`, error);
}
