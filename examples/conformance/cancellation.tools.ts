import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Args, Content, McpContext, McpCtx, Tool } from '../../src/index.js';
import type { ContentBlock } from '../../src/index.js';

/** How often the slow tool reports progress: well inside the 3 s in which the referee waits for a first event. */
const STEP_MS = 500;

/**
 * The tools of the cancellation scenarios: `test_tool_slow` runs for `durationMs` and is what a client cancels,
 * by closing its 2026-07-28 response stream or with `notifications/cancelled` on the 2025-era leg, and
 * `test_tool_fast` is the health check after it. The slow one opens its stream before it starts, so a client
 * sees the call under way even when it asked for no progress; its `ctx.signal` fires when the stream closes,
 * which ends the sleep, so a cancelled call stops at once.
 */
@Injectable()
export class CancellationTools {
  /** Sleeps for durationMs milliseconds, reporting progress each half second when given a progress token */
  @Tool({ name: 'test_tool_slow' })
  async slow(@Args('durationMs') durationMs: number | undefined, @McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const total = Math.max(0, durationMs ?? 5_000);
    ctx.openStream();
    for (let elapsed = 0; elapsed < total;) {
      const step = Math.min(STEP_MS, total - elapsed);
      await sleep(step, undefined, { signal: ctx.signal });
      elapsed += step;
      ctx.reportProgress({ progress: elapsed, total });
    }
    return Content.text(`Slow tool completed after ${total} ms`);
  }

  /** Answers at once */
  @Tool({ name: 'test_tool_fast' })
  fast(): ContentBlock {
    return Content.text('Fast tool completed');
  }
}
