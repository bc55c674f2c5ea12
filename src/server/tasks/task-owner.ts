import { canonicalDigest } from '../input/request-state-codec.js';

/**
 * The key a task is bound to: a digest of the principal's own enumerable data (an McpPrincipal's issuer,
 * subject and client), so the same user and client keep their tasks across token refreshes, and anyone else
 * gets -32602 as if the task did not exist. Without authentication every caller is the same owner: the task
 * id, drawn at random, is then what keeps one caller's task from another.
 */
export function taskOwnerOf(principal: unknown): string {
  return principal === undefined || principal === null ? '' : canonicalDigest(principal);
}
