import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Content, MCPServer } from '../../src/index.js';
import { TEST_IMAGE_BASE64 } from './fixture-data.js';

/** The prompts of the prompts-* scenarios, the completion target, and the multi-round prompt. */
@Injectable()
export class ConformancePrompts implements OnModuleInit {
  constructor(private readonly server: MCPServer) {}

  onModuleInit(): void {
    this.server.addPrompt({
      name: 'test_simple_prompt',
      description: 'A simple prompt without arguments',
      handler: () => 'This is a simple prompt for testing.',
    });
    this.server.addPrompt({
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      handler: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
      complete: {
        arg1: (value) => ['test', 'testValue1', 'testing', 'other'].filter((v) => v.startsWith(value)),
        arg2: (value) => ['testValue2', 'sample'].filter((v) => v.startsWith(value)),
      },
    });
    this.server.addPrompt({
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt that embeds the resource it is given',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      handler: ({ resourceUri }) => [
        { role: 'user', content: Content.textResource(resourceUri, 'Embedded resource content for testing.') },
        { role: 'user', content: Content.text('Please process the embedded resource above.') },
      ],
    });
    this.server.addPrompt({
      name: 'test_prompt_with_image',
      description: 'A prompt with an image',
      handler: () => [
        { role: 'user', content: Content.image(TEST_IMAGE_BASE64, 'image/png') },
        { role: 'user', content: Content.text('Please analyze the image above.') },
      ],
    });
    this.server.addPrompt({
      name: 'test_input_required_result_prompt',
      description: 'A prompt that asks the user for context (key user_context) before it is built',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit(
          'What context should the prompt use?',
          { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
          { key: 'user_context' },
        );
        return `Use this context: ${String(answer.content?.context)}`;
      },
    });
  }
}
