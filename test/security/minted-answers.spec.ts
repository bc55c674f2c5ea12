import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MCPServer, McpModule, type McpContext } from '../../src/index.js';
import { createMcpTestClient, mcpMessage } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';

const ELICIT = { clientCapabilities: { elicitation: { form: {} } } };
const ACCEPT = { action: 'accept', content: {} };
type Json = Record<string, any>;

/**
 * Security round 2, finding 12: under a request state, `ctx.elicit` takes only an answer to the very question
 * the state was minted for; the seed-contract handler still receives what the client sent. (An answer sent
 * with no state at all is still taken: SEP-2322 allows it and the conformance referee checks it.)
 */
describe('security round 2: the context helpers take only answers to questions this server asked', () => {
  let app: INestApplication;
  const raw: Json[] = [];

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'minted', version: '1.0.0' })]);
    const server = app.get(MCPServer);
    server.addTool({
      name: 'delete_note',
      description: 'Deletes a note after confirmation',
      inputSchema: { type: 'object', properties: { id: { type: 'number' } } },
      handler: async (args: { id?: number }, _answers, ctx: McpContext) =>
        `delete ${args.id}: ${(await ctx.elicit(`Delete note ${args.id}?`, { type: 'object', properties: {} })).action}`,
    });
    server.addTool({
      name: 'raw',
      description: 'Sees the answers as sent',
      inputSchema: { type: 'object' },
      handler: (_args, inputResponses) => {
        raw.push(inputResponses);
        return 'seen';
      },
    });
  });
  afterAll(() => app.close());

  const post = (params: Json) => createMcpTestClient(app).post(mcpMessage('tools/call', params, ELICIT));

  it("ignores an answer replayed under another question's state; the honest round still works", async () => {
    const first = await post({ name: 'delete_note', arguments: { id: 55 } });
    const state55 = first.body.result.requestState;
    // The same state, resent for another note, is another binding: refused outright.
    const other = await post({
      name: 'delete_note',
      arguments: { id: 56 },
      inputResponses: { elicit_0: ACCEPT },
      requestState: state55,
    });
    expect(other.body.error).toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } });
    const honest = await post({
      name: 'delete_note',
      arguments: { id: 55 },
      inputResponses: { elicit_0: ACCEPT },
      requestState: state55,
    });
    expect(honest.body.result.content[0].text).toBe('delete 55: accept');
  });

  it('asks again when the handler asks another question under a key its state minted for a different one', async () => {
    let question = 'Delete note 57?';
    app.get(MCPServer).addTool({
      name: 'changing',
      description: 'Asks a question that changes between rounds',
      inputSchema: { type: 'object' },
      handler: async (_args, _answers, ctx: McpContext) =>
        `answered "${question}": ${(await ctx.elicit(question, { type: 'object', properties: {} })).action}`,
    });
    const first = await post({ name: 'changing', arguments: {} });
    question = 'Delete every note?';
    const retry = await post({
      name: 'changing',
      arguments: {},
      inputResponses: { elicit_0: ACCEPT },
      requestState: first.body.result.requestState,
    });
    expect(retry.body.result.resultType).toBe('input_required');
    expect(retry.body.result.inputRequests.elicit_0.params.message).toBe('Delete every note?');
  });

  it('still hands the seed-contract handler what the client sent', async () => {
    const res = await post({ name: 'raw', arguments: {}, inputResponses: { confirm: ACCEPT } });
    expect(res.body.result.content[0].text).toBe('seen');
    expect(raw.at(-1)).toEqual({ confirm: ACCEPT });
  });
});
