import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Content, MCPServer, type McpContext } from '../../src/index.js';
import { NO_ARGUMENTS } from './fixture-data.js';

const DYNAMIC_TOOL = 'test_dynamic_tool';
const DYNAMIC_PROMPT = 'test_dynamic_prompt';

/**
 * The diagnostic tools `server-stateless` calls: a tool that needs an undeclared client capability, a tool
 * whose stream must carry no server-to-client request, a tool that logs only when asked to, and the two
 * triggers that change the tool and prompt lists while a `subscriptions/listen` stream is open.
 */
@Injectable()
export class DiagnosticTools implements OnModuleInit {
  constructor(private readonly server: MCPServer) {}

  onModuleInit(): void {
    const server = this.server;
    server.addTool({
      name: 'test_missing_capability',
      description: 'Needs the sampling client capability: without it the call fails with -32021',
      inputSchema: NO_ARGUMENTS,
      requiredCapabilities: { sampling: {} },
      handler: async (_args: object, _inputs: unknown, ctx: McpContext) => {
        const answer = await ctx.sample('Say hello', { maxTokens: 20, key: 'hello' });
        return Content.text(`The client's model said: ${JSON.stringify(answer.content)}`);
      },
    });
    server.addTool({
      name: 'test_streaming_elicitation',
      description: 'Asks for input through an input_required result, never through a request on the stream',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args: object, _inputs: unknown, ctx: McpContext) => {
        const answer = await ctx.elicit('What is your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, { key: 'user_name' });
        return Content.text(`Hello, ${String(answer.content?.name ?? 'stranger')}!`);
      },
    });
    server.addTool({
      name: 'test_logging_tool',
      description: 'Logs three messages, which are sent only when the request sets a log level',
      inputSchema: NO_ARGUMENTS,
      handler: (_args: object, _inputs: unknown, ctx: McpContext) => {
        ctx.log('info', 'Tool execution started', 'conformance');
        ctx.log('info', 'Tool processing data', 'conformance');
        ctx.log('info', 'Tool execution completed', 'conformance');
        return Content.text('Tool with logging executed successfully');
      },
    });
    server.addTool({
      name: 'test_trigger_tool_change',
      description: `Adds or removes the tool "${DYNAMIC_TOOL}", so listen streams get notifications/tools/list_changed`,
      inputSchema: NO_ARGUMENTS,
      handler: () => Content.text(this.toggleTool() ? `Added ${DYNAMIC_TOOL}` : `Removed ${DYNAMIC_TOOL}`),
    });
    server.addTool({
      name: 'test_trigger_prompt_change',
      description: `Adds or removes the prompt "${DYNAMIC_PROMPT}", so listen streams get notifications/prompts/list_changed`,
      inputSchema: NO_ARGUMENTS,
      handler: () => Content.text(this.togglePrompt() ? `Added ${DYNAMIC_PROMPT}` : `Removed ${DYNAMIC_PROMPT}`),
    });
  }

  /** Returns true when the tool was added, false when it was removed. */
  private toggleTool(): boolean {
    if (this.server.removeTool(DYNAMIC_TOOL)) return false;
    this.server.addTool({
      name: DYNAMIC_TOOL,
      description: 'A tool that comes and goes with test_trigger_tool_change',
      inputSchema: NO_ARGUMENTS,
      handler: () => Content.text('dynamic'),
    });
    return true;
  }

  private togglePrompt(): boolean {
    if (this.server.removePrompt(DYNAMIC_PROMPT)) return false;
    this.server.addPrompt({
      name: DYNAMIC_PROMPT,
      description: 'A prompt that comes and goes with test_trigger_prompt_change',
      handler: () => 'This prompt was added by test_trigger_prompt_change.',
    });
    return true;
  }
}
