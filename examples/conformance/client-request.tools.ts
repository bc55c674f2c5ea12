import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Args, Content, McpContext, McpCtx, Tool } from '../../src/index.js';
import type { ContentBlock } from '../../src/index.js';
import { ENUM_VARIANTS_FORM, DEFAULTS_FORM, USER_FORM } from './fixture-data.js';

/**
 * The tools of the 2025-11-25 scenarios that ask the client for something (tools-call-sampling,
 * tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums) and the one that logs
 * (tools-call-with-logging). Each is written once with `ctx.sample` / `ctx.elicit` / `ctx.log` and serves both
 * eras: a 2026-07-28 client gets an input_required round, a 2025-era client a real `sampling/createMessage` or
 * `elicitation/create` request on the call's stream, answered by a POST. The two with arguments have no schema
 * written: nestjs-mcp/plugin derives it from their parameter types (plugin-metadata.ts).
 */
@Injectable()
export class ClientRequestTools {
  @Tool({ name: 'test_tool_with_logging', description: 'Sends three log messages while it runs, about 50 ms apart' })
  async withLogging(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    ctx.log('info', 'Tool execution started');
    await sleep(50);
    ctx.log('info', 'Tool processing data');
    await sleep(50);
    ctx.log('info', 'Tool execution completed');
    return Content.text('Tool with logging executed successfully');
  }

  /** Asks the client's model to answer a prompt (sampling) */
  @Tool({ name: 'test_sampling' })
  async sampling(@Args('prompt') prompt: string, @McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.sample(prompt, { maxTokens: 100 });
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return Content.text(`LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`);
  }

  /** Asks the user for a username and an email address (elicitation) */
  @Tool({ name: 'test_elicitation' })
  async elicitation(@Args('message') message: string, @McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.elicit(message, USER_FORM);
    return Content.text(`User response: <action: ${answer.action}, content: ${JSON.stringify(answer.content ?? {})}>`);
  }

  @Tool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Asks for a form whose every primitive field has a default (SEP-1034)',
  })
  async defaults(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.elicit('Please review and update the form fields with defaults', DEFAULTS_FORM);
    return Content.text(
      `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
    );
  }

  @Tool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Asks for a form with the five enum variants (SEP-1330)',
  })
  async enums(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.elicit('Please select options from the enum fields', ENUM_VARIANTS_FORM);
    return Content.text(
      `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
    );
  }
}
