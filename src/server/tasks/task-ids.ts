import { randomFillSync } from 'node:crypto';

// 144 random bits per id. Drawn from the system's CSPRNG in blocks: one call per id cost more than the rest of
// an in-process task's creation.
const ID_BYTES = 18;
const IDS_PER_BLOCK = 256;
const block = Buffer.alloc(ID_BYTES * IDS_PER_BLOCK);
let next = IDS_PER_BLOCK;

/** A new task id: 144 bits from `crypto`'s generator, base64url, never handed out twice from one block. */
export function newTaskId(): string {
  if (next === IDS_PER_BLOCK) {
    randomFillSync(block);
    next = 0;
  }
  const start = next++ * ID_BYTES;
  return block.toString('base64url', start, start + ID_BYTES);
}
