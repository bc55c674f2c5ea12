import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { INVALID_SCOPES } from '../errors/configuration-messages.js';

// RFC 6749 §3.3 scope-token: printable ASCII except space, `"` and `\`, so a scope is always safe inside a
// quoted WWW-Authenticate parameter.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Checks the `requiredScopes` of a registration; returns them deduplicated, or undefined when none. */
export function checkRequiredScopes(owner: string, scopes: unknown): string[] | undefined {
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))) {
    throw new McpConfigurationError(INVALID_SCOPES(owner));
  }
  return scopes.length === 0 ? undefined : [...new Set(scopes as string[])];
}

/** Whether every required scope is granted; no requirement is always satisfied. */
export function hasScopes(required: readonly string[] | undefined, granted: ReadonlySet<string>): boolean {
  return required === undefined || required.every((scope) => granted.has(scope));
}

/**
 * Refuses a call whose caller lacks scopes. The error names every scope the operation needs (not just the
 * missing ones), so the client can ask for all of them in one step-up; the HTTP layer answers it with 403 and
 * an `insufficient_scope` challenge.
 */
export function insufficientScope(what: string, required: readonly string[]): McpError {
  return new McpError(ErrorCode.InsufficientScope, `Insufficient scope: ${what} requires ${required.join(' ')}`, {
    requiredScopes: [...required],
  });
}
