import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Content, MCPServer, type InputRequests, type McpContext } from '../../src/index.js';
import { NO_ARGUMENTS } from './fixture-data.js';

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const CONFIRM_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

type Handler = (ctx: McpContext) => Promise<unknown>;

/**
 * The multi-round (input_required) tools of the input-required-result-* scenarios. Each handler reads top to
 * bottom: an `elicit`/`sample`/`listRoots` call returns the client's answer when the retry carries it, and
 * otherwise ends the round with an input_required result and signed request state.
 */
@Injectable()
export class InputRequiredTools implements OnModuleInit {
  constructor(private readonly server: MCPServer) {}

  onModuleInit(): void {
    this.tool('test_input_required_result_elicitation', 'Asks for the user name (key user_name), then greets', async (ctx) => {
      const answer = await ctx.elicit('What is your name?', NAME_SCHEMA, { key: 'user_name' });
      return `Hello, ${String(answer.content?.name)}!`;
    });
    this.tool('test_input_required_result_sampling', 'Asks the client model a question (key capital_question)', async (ctx) => {
      const answer = await ctx.sample('What is the capital of France?', { maxTokens: 100, key: 'capital_question' });
      return `The model answered: ${textOf(answer.content)}`;
    });
    this.tool('test_input_required_result_list_roots', 'Asks the client for its roots (key client_roots)', async (ctx) => {
      const roots = await ctx.listRoots({ key: 'client_roots' });
      return `Client roots: ${roots.map((r) => r.uri).join(', ')}`;
    });
    this.tool('test_input_required_result_request_state', 'Asks for confirmation (key confirm) and carries signed request state', async (ctx) => {
      const answer = await ctx.elicit('Please confirm', CONFIRM_SCHEMA, { key: 'confirm' });
      return `state-ok: confirmed=${String(answer.content?.ok)}`;
    });
    this.tool('test_input_required_result_multiple_inputs', 'Asks for a name, a sampled greeting and the roots in one round', async (ctx) => {
      const answers = await ctx.requestInputs({
        user_name: { method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_SCHEMA } },
        greeting: {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
        },
        client_roots: { method: 'roots/list', params: {} },
      });
      return `Received ${Object.keys(answers).length} input responses: ${Object.keys(answers).join(', ')}`;
    });
    this.tool('test_input_required_result_multi_round', 'Asks for a name (step1), then a colour (step2), then completes', async (ctx) => {
      const name = await ctx.elicit('Step 1: What is your name?', NAME_SCHEMA, { key: 'step1' });
      const color = await ctx.elicit(
        'Step 2: What is your favorite color?',
        { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        { key: 'step2' },
      );
      return `${String(name.content?.name)} likes ${String(color.content?.color)}`;
    });
    this.tool('test_input_required_result_tampered_state', 'Asks for confirmation; a tampered request state is rejected', async (ctx) => {
      const answer = await ctx.elicit('Please confirm', CONFIRM_SCHEMA, { key: 'confirm' });
      return `state-ok: confirmed=${String(answer.content?.ok)}`;
    });
    this.tool('test_input_required_result_capabilities', 'Asks only for what the client declared it can answer', async (ctx) => {
      const wanted: InputRequests = {
        user_input: { method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_SCHEMA } },
        model_input: {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 50 },
        },
      };
      // Ask only for what this request's clientCapabilities say the client can answer.
      const answers = await ctx.requestInputs(Object.fromEntries(Object.entries(wanted).filter(([, request]) => ctx.supports(request))));
      return `Received: ${Object.keys(answers).join(', ')}`;
    });
  }

  private tool(name: string, description: string, run: Handler): void {
    this.server.addTool({
      name,
      description,
      inputSchema: NO_ARGUMENTS,
      handler: async (_args: object, _inputs: unknown, ctx: McpContext) => Content.text(String(await run(ctx))),
    });
  }
}

function textOf(content: unknown): string {
  const text = (content as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : JSON.stringify(content);
}
