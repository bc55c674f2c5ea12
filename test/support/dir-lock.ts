import { mkdirSync, rmSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

// A lock older than this belongs to a run that died while holding it.
const STALE_LOCK_MS = 5 * 60_000;

/**
 * Runs `work` while holding a lock directory: jest runs spec files in parallel workers, and some set-up (a build,
 * an install) must happen one at a time, the second finding it done.
 */
export async function withDirLock<T>(lock: string, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() - lockedAt(lock) > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function lockedAt(lock: string): number {
  try {
    return statSync(lock).mtimeMs;
  } catch {
    return Date.now();
  }
}
