import type { Caller } from '../access/caller-identity.js';
import { canonicalDigest } from '../util/canonical-digest.js';

/**
 * The key a task is bound to: a digest of the server and the caller identity, so the same caller keeps its
 * tasks across token refreshes, and anyone else (another caller, or the same caller on another server sharing
 * the store) gets -32602 as if the task did not exist. Without authentication every caller is the same owner:
 * the task id, drawn at random, is then what keeps one caller's task from another. Undefined for a caller whose
 * principal identifies nobody: such callers cannot be told apart, so they may own no task.
 */
export function taskOwner(server: string, caller: Caller): string | undefined {
  return caller === null ? undefined : canonicalDigest([server, caller ?? null]);
}
