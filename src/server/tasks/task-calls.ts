import { canonicalDigest } from '../util/canonical-digest.js';
import type { TaskCall } from './task-queue.js';
import type { StoredTask } from './task-store.js';

/**
 * Signs and checks what the server keeps where others could write it: `requestState.secret`'s keys (the request
 * state codec), so every instance and worker sharing that secret verifies what any of them signed.
 */
export interface RecordSigner {
  /** True when no secret was given and a key drawn at start-up signs: no other process can verify. */
  readonly generatedSecret: boolean;
  sign(data: string): string;
  verify(data: string, mac: string): boolean;
}

// A prefix of its own, so a MAC of a queued call never verifies as a request state's (`v1.…`) or the reverse.
const CALL_MAC_PREFIX = 'task-call.v1\n';

/**
 * The task with `call` as a store keeps it: as its JSON reads back (so the MAC of a record read from Redis is
 * that of the record written), its size in bytes (the owner's byte share counts it) and its MAC, which binds
 * the tool, arguments, principal, `_meta`, state and answers to this task's server, id and owner.
 */
export function withCall(task: StoredTask, call: TaskCall, signer: RecordSigner): StoredTask {
  const json = JSON.stringify(call);
  const kept = JSON.parse(json) as TaskCall;
  return { ...task, call: kept, callBytes: Buffer.byteLength(json), callMac: signer.sign(signedText(task, kept)) };
}

/**
 * The task with its call extended (a round's answers), signed again only when the call it had verifies: an
 * instance never signs what someone changed in the store, which a worker then refuses.
 */
export function withCallChanged(task: StoredTask, call: TaskCall, signer: RecordSigner): StoredTask {
  const changed = withCall(task, call, signer);
  return callVerifies(task, signer) ? changed : { ...changed, callMac: task.callMac };
}

/** Whether the task's call is the one the server signed for this task (its server, id and owner). */
export function callVerifies(task: StoredTask, signer: RecordSigner): boolean {
  const { call, callMac } = task;
  return call !== undefined && typeof callMac === 'string' && signer.verify(signedText(task, call), callMac);
}

function signedText(task: StoredTask, call: TaskCall): string {
  return CALL_MAC_PREFIX + canonicalDigest([task.server, task.taskId, task.owner, call]);
}
