import { Injectable } from '@nestjs/common';
import { Content, McpContext, McpCtx, Tool } from '../../src/index.js';
import type { ContentBlock } from '../../src/index.js';
import { NAME_FORM } from './fixture-data.js';

/**
 * The per-request behaviours `server-stateless` probes: a tool that needs a client capability the request may
 * lack, a tool that asks for input without ever sending a request on its stream, and a tool that logs only
 * when the request asks for logs, at the levels `per-request-loglevel` filters; and, for 2025-11-25's
 * `server-sse-polling`, a tool that closes its stream mid-call.
 */
@Injectable()
export class DiagnosticTools {
  /** Declared needs are checked before the method runs: a request without `sampling` gets -32021 / 400. */
  @Tool({
    name: 'test_missing_capability',
    description: 'Needs the sampling client capability: without it the call fails with -32021',
    requiredCapabilities: { sampling: {} },
  })
  async missingCapability(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.sample('Say hello', { maxTokens: 20, key: 'hello' });
    return Content.text(`The client's model said: ${JSON.stringify(answer.content)}`);
  }

  /** `ctx.elicit` ends the call with an input_required result; the stream never carries a server request. */
  @Tool({
    name: 'test_streaming_elicitation',
    description: 'Asks for input through an input_required result, never through a request on the stream',
  })
  async streamingElicitation(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.elicit('What is your name?', NAME_FORM, { key: 'user_name' });
    return Content.text(`Hello, ${String(answer.content?.name ?? 'stranger')}!`);
  }

  /**
   * `ctx.log` sends only when `_meta["io.modelcontextprotocol/logLevel"]` asks for this level or a lower one, so
   * a request at `error` gets one of these four, and one at an unknown level is refused with -32602.
   */
  @Tool({
    name: 'test_logging_tool',
    description: 'Logs at debug, info, warning and error, sent only at or above the level the request sets',
  })
  logging(@McpCtx() ctx: McpContext): ContentBlock {
    ctx.log('debug', 'Tool execution started', 'conformance');
    ctx.log('info', 'Tool processing data', 'conformance');
    ctx.log('warning', 'Tool data is a sample', 'conformance');
    ctx.log('error', 'Tool execution completed with a sample error entry', 'conformance');
    return Content.text('Tool with logging executed successfully');
  }

  /**
   * `server-legacy-extensions`: the extensions the client declared, as the server sees them (never read from the
   * raw request). On 2026-07-28 every request declares them; on the 2025-era leg only `initialize` does, so only a
   * session (`MCP_LEGACY=stateful`) keeps them for the calls after it.
   */
  @Tool({
    name: 'test_legacy_extension_capabilities',
    description: 'Returns the client extensions this server sees for the request, as JSON text',
  })
  extensionCapabilities(@McpCtx() ctx: McpContext): ContentBlock {
    return Content.text(JSON.stringify({ extensions: ctx.clientCapabilities?.extensions ?? {} }));
  }

  /**
   * Closes its SSE stream before it answers (SSE polling, SEP-1699): with `MCP_LEGACY=stateful` a 2025-era
   * client in a session resumes the stream with a GET carrying `Last-Event-ID` and gets the result there.
   * Anywhere else there is no stream to close and the result comes as usual.
   */
  @Tool({
    name: 'test_reconnection',
    description: 'Closes its stream mid-call; the result arrives when the client resumes the stream',
  })
  async reconnection(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    if (ctx.closeStream()) await new Promise((resolve) => setTimeout(resolve, 100));
    return Content.text('Reconnection test completed successfully');
  }
}
