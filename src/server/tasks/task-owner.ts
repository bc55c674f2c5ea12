import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { Caller } from '../access/caller-identity.js';
import { canonicalDigest } from '../util/canonical-digest.js';

// Every task call names its owner (create, get, update, cancel, a listen stream's filter): a digest per call was
// a tenth of a task's cost in process. The few servers of a process each keep the owners of their recent callers.
const OWNERS_KEPT = 1_024;
const owners = new Map<string, Map<string | undefined, string>>();

/**
 * The key a task is bound to: a digest of the server and the caller identity, so the same caller keeps its
 * tasks across token refreshes, and anyone else (another caller, or the same caller on another server sharing
 * the store) gets -32602 as if the task did not exist. Without authentication every caller is the same owner:
 * the task id, drawn at random, is then what keeps one caller's task from another. Undefined for a caller whose
 * principal identifies nobody: such callers cannot be told apart, so they may own no task.
 */
export function taskOwner(server: string, caller: Caller): string | undefined {
  if (caller === null) return undefined;
  let ofServer = owners.get(server);
  if (!ofServer) owners.set(server, (ofServer = new Map()));
  let owner = ofServer.get(caller);
  if (owner === undefined) {
    // Past the bound the memo starts again: the digest is only recomputed, never wrong.
    if (ofServer.size >= OWNERS_KEPT) ofServer.clear();
    owner = canonicalDigest([server, caller ?? null]);
    ofServer.set(caller, owner);
  }
  return owner;
}

/** The owner of a task `caller` creates: -32603 for a caller whose principal identifies nobody. */
export function ownerOf(server: string, caller: Caller): string {
  const owner = taskOwner(server, caller);
  if (owner === undefined)
    throw new McpError(
      ErrorCode.InternalError,
      'Internal error: a task cannot be owned by a principal without identity (give it an identifying member, e.g. sub)',
    );
  return owner;
}
