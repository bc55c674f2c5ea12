import { Injectable } from '@nestjs/common';
import { Args, Content, McpContext, McpCtx, Prompt, RequireScopes } from '../../src/index.js';
import type { PromptMessage } from '../../src/protocol/mcp-types.js';
import { completeFrom } from './complete-from.js';
import { CONTEXT_FORM, TEST_IMAGE_BASE64 } from './fixture-data.js';
import { fixtureScopes } from './scope-challenge.js';

/**
 * The prompts of the prompts-* scenarios, the completion target of completion-complete, and the multi-round
 * prompt of input-required-result-non-tool-request. A string result is one user message; messages are built
 * with the `Content` helpers.
 */
@Injectable()
export class ConformancePrompts {
  @Prompt({ name: 'test_simple_prompt', description: 'A simple prompt without arguments' })
  @RequireScopes(...fixtureScopes('mcp:conformance:prompts:get', 'mcp:conformance:prompts:test_simple_prompt'))
  simple(): string {
    return 'This is a simple prompt for testing.';
  }

  /** Required arguments are checked before the method runs (-32602 when one is missing). */
  @Prompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    complete: {
      arg1: completeFrom(['test', 'testValue1', 'testing', 'other']),
      arg2: completeFrom(['testValue2', 'sample']),
    },
  })
  withArguments(@Args('arg1') arg1: string, @Args('arg2') arg2: string): string {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  @Prompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds the resource it is given',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  })
  withEmbeddedResource(@Args('resourceUri') resourceUri: string): PromptMessage[] {
    return [
      { role: 'user', content: Content.textResource(resourceUri, 'Embedded resource content for testing.') },
      { role: 'user', content: Content.text('Please process the embedded resource above.') },
    ];
  }

  @Prompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' })
  withImage(): PromptMessage[] {
    return [
      { role: 'user', content: Content.image(TEST_IMAGE_BASE64, 'image/png') },
      { role: 'user', content: Content.text('Please analyze the image above.') },
    ];
  }

  /** Prompts can ask for input across rounds too, exactly like tools. */
  @Prompt({
    name: 'test_input_required_result_prompt',
    description: 'A prompt that asks the user for context (key user_context) before it is built',
  })
  async withInputRequired(@McpCtx() ctx: McpContext): Promise<string> {
    const answer = await ctx.elicit('What context should the prompt use?', CONTEXT_FORM, { key: 'user_context' });
    return `Use this context: ${String(answer.content?.context)}`;
  }
}
