import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Content, McpContext, McpCtx, Tool } from '../../src/index.js';
import type { ContentBlock } from '../../src/index.js';

/**
 * The tool of tools-call-with-progress. When the call carries `_meta.progressToken`, the response becomes an
 * SSE stream and every `reportProgress` is a `notifications/progress` on it, before the result.
 */
@Injectable()
export class ProgressTools {
  @Tool({ name: 'test_tool_with_progress', description: 'Tests tool that reports progress notifications' })
  async withProgress(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await sleep(50);
      ctx.reportProgress({ progress, total: 100, message: `Completed step ${progress} of 100` });
    }
    return Content.text(String(ctx.progressToken ?? 'no progress token'));
  }
}
