import { renderText } from '../content.js';
import { ToolError } from '../errors/tool-error.js';

/** What the server log receives with an unexpected handler error. */
export interface HandlerErrorReport {
  /** Also given to the client when messages are redacted, so a support request can be matched to the log. */
  correlationId: string;
  method: string;
  /** The tool, prompt or resource the request named. */
  name?: string;
  /** Null for a request refused before its body was read. */
  requestId: string | number | null;
}

export type HandlerErrorLogger = (error: unknown, report: HandlerErrorReport) => void;

// A stack frame line, and an absolute POSIX path (not one inside a URL) or a Windows drive path.
const STACK_LINE = /\n\s+at\s[^\n]*/g;
const ABSOLUTE_PATH = /(?<![\w:/.~-])(?:\/[\w.@+-]+){2,}\/?|\b[A-Za-z]:\\(?:[^\\\s'"]+\\)*[^\\\s'"]*/g;

/**
 * Decides what a client may read of an error thrown by a handler. A `ToolError` is meant for the client and
 * passes as it is. Anything else is unexpected: it is logged with a correlation id, and the client gets either
 * a generic text with that id (`redact`, the default in production) or the message without stack lines and
 * absolute paths, which tell an attacker where the code lives.
 */
export class HandlerErrorPolicy {
  constructor(
    private readonly redact: boolean,
    private readonly newId: () => string,
    private readonly log?: HandlerErrorLogger,
  ) {}

  clientMessage(
    error: unknown,
    context: Omit<HandlerErrorReport, 'correlationId'>,
    correlationId = this.newId(),
  ): string {
    if (error instanceof ToolError) return error.message;
    this.log?.(error, { ...context, correlationId });
    if (this.redact) return `Internal error (reference ${correlationId})`;
    return scrubMessage(error instanceof Error ? error.message : renderText(error));
  }
}

/** Removes stack frames and absolute file paths from a message. */
export function scrubMessage(message: string): string {
  return message.replace(STACK_LINE, '').replace(ABSOLUTE_PATH, '<path>');
}
