/**
 * An error a handler means the client to read: its message reaches the client verbatim (as `Error: <message>`
 * in a tool result), even when unexpected errors are redacted. Throw it for expected failures ("City not
 * found"); anything else a handler throws is treated as a bug and may be replaced by a generic text.
 */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}
