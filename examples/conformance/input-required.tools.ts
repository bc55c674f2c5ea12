import { Injectable } from '@nestjs/common';
import { Content, McpContext, McpCtx, Tool } from '../../src/index.js';
import type { ContentBlock } from '../../src/index.js';
import type { InputRequests } from '../../src/protocol/mcp-types.js';
import { COLOR_FORM, CONFIRM_FORM, NAME_FORM } from './fixture-data.js';

/**
 * The multi-round (input_required) tools of the input-required-result-* scenarios. Each method reads top to
 * bottom: `ctx.elicit` / `ctx.sample` / `ctx.listRoots` / `ctx.requestInputs` return the client's answers when
 * the retry carries them, and otherwise end the round with an input_required result and signed request state.
 * The method re-runs from the start on every round, so the keys name each question across rounds.
 */
@Injectable()
export class InputRequiredTools {
  @Tool({
    name: 'test_input_required_result_elicitation',
    description: 'Asks for the user name (key user_name), then greets',
  })
  async elicitation(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.elicit('What is your name?', NAME_FORM, { key: 'user_name' });
    return Content.text(`Hello, ${String(answer.content?.name)}!`);
  }

  @Tool({
    name: 'test_input_required_result_sampling',
    description: 'Asks the client model a question (key capital_question)',
  })
  async sampling(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.sample('What is the capital of France?', { maxTokens: 100, key: 'capital_question' });
    return Content.text(`The model answered: ${textOf(answer.content)}`);
  }

  @Tool({
    name: 'test_input_required_result_list_roots',
    description: 'Asks the client for its roots (key client_roots)',
  })
  async listRoots(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const roots = await ctx.listRoots({ key: 'client_roots' });
    return Content.text(`Client roots: ${roots.map((root) => root.uri).join(', ')}`);
  }

  @Tool({
    name: 'test_input_required_result_request_state',
    description: 'Asks for confirmation (key confirm) and carries signed request state',
  })
  requestState(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    return this.confirm(ctx);
  }

  /** Inputs asked together go out in one input_required result. */
  @Tool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks for a name, a sampled greeting and the roots in one round',
  })
  async multipleInputs(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const answers = await ctx.requestInputs({
      user_name: {
        method: 'elicitation/create',
        params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_FORM },
      },
      greeting: {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: Content.text('Generate a greeting') }], maxTokens: 50 },
      },
      client_roots: { method: 'roots/list', params: {} },
    });
    const keys = Object.keys(answers);
    return Content.text(`Received ${keys.length} input responses: ${keys.join(', ')}`);
  }

  /** Each answered round moves on to the next question; the earlier answers ride along in the signed state. */
  @Tool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks for a name (step1), then a colour (step2), then completes',
  })
  async multiRound(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const name = await ctx.elicit('Step 1: What is your name?', NAME_FORM, { key: 'step1' });
    const color = await ctx.elicit('Step 2: What is your favorite color?', COLOR_FORM, { key: 'step2' });
    return Content.text(`${String(name.content?.name)} likes ${String(color.content?.color)}`);
  }

  @Tool({
    name: 'test_input_required_result_tampered_state',
    description: 'Asks for confirmation; a tampered request state is rejected',
  })
  tamperedState(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    return this.confirm(ctx);
  }

  /** `ctx.supports` tells which inputs this request's `clientCapabilities` say the client can answer. */
  @Tool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only for what the client declared it can answer',
  })
  async capabilities(@McpCtx() ctx: McpContext): Promise<ContentBlock> {
    const wanted: InputRequests = {
      user_input: {
        method: 'elicitation/create',
        params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_FORM },
      },
      model_input: {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: Content.text('Say hello') }], maxTokens: 50 },
      },
    };
    const answerable = Object.fromEntries(Object.entries(wanted).filter(([, request]) => ctx.supports(request)));
    const answers = await ctx.requestInputs(answerable);
    return Content.text(`Received: ${Object.keys(answers).join(', ')}`);
  }

  /** Both request-state tools ask the same question; what differs is what the client does with the state. */
  private async confirm(ctx: McpContext): Promise<ContentBlock> {
    const answer = await ctx.elicit('Please confirm', CONFIRM_FORM, { key: 'confirm' });
    return Content.text(`state-ok: confirmed=${String(answer.content?.ok)}`);
  }
}

/** The text of a sampled message, or its JSON when the model answered with another kind of block. */
function textOf(content: unknown): string {
  const text = (content as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : JSON.stringify(content);
}
