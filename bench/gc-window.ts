import { GCProfiler, getHeapStatistics } from 'node:v8';

/** What the heap did between two marks: bytes allocated, bytes promoted by scavenges, and the collections. */
export interface GcFigures {
  allocatedBytes: number;
  promotedBytes: number;
  scavenges: number;
  markCompacts: number;
  /** Microseconds the collections took on the main thread (their helpers' share is on other threads). */
  pauseUs: number;
}

interface HeapSnapshot {
  heapStatistics: { usedHeapSize: number };
  heapSpaceStatistics: Array<{ spaceName: string; spaceUsedSize: number }>;
}

/** The young generation's spaces: what a scavenge empties, and what it promotes out of. */
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

function oldBytes(heap: HeapSnapshot): number {
  let bytes = 0;
  for (const space of heap.heapSpaceStatistics) if (!YOUNG_SPACES.has(space.spaceName)) bytes += space.spaceUsedSize;
  return bytes;
}

/**
 * Allocation and promotion between `start()` and `stop()`, from V8's own per-collection heap statistics
 * (`v8.GCProfiler`). Unlike CPU time, neither depends on what else the machine runs: a request that allocates
 * more, or whose objects outlive a scavenge (and so reach the old generation, where only a full collection frees
 * them), shows here whatever the load.
 */
export class GcWindow {
  private profiler: GCProfiler | undefined;
  private usedAtStart = 0;

  start(): void {
    this.profiler = new GCProfiler();
    this.usedAtStart = getHeapStatistics().used_heap_size;
    this.profiler.start();
  }

  /** The figures since `start()`; zeros when the window was never started. */
  stop(): GcFigures {
    const figures: GcFigures = { allocatedBytes: 0, promotedBytes: 0, scavenges: 0, markCompacts: 0, pauseUs: 0 };
    if (!this.profiler) return figures;
    const usedNow = getHeapStatistics().used_heap_size;
    const { statistics } = this.profiler.stop();
    this.profiler = undefined;
    let used = this.usedAtStart;
    for (const gc of statistics) {
      const before = gc.beforeGC as HeapSnapshot;
      const after = gc.afterGC as HeapSnapshot;
      figures.allocatedBytes += before.heapStatistics.usedHeapSize - used;
      used = after.heapStatistics.usedHeapSize;
      figures.pauseUs += gc.cost;
      if (gc.gcType === 'Scavenge') {
        figures.scavenges++;
        figures.promotedBytes += Math.max(0, oldBytes(after) - oldBytes(before));
      } else if (gc.gcType === 'MarkSweepCompact') {
        figures.markCompacts++;
      }
    }
    figures.allocatedBytes += usedNow - used;
    return figures;
  }
}
