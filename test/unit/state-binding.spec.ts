import { type McpContext } from '../../src/index.js';
import { McpKernel } from '../../src/core/index.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

/** Request state is bound to the original call; the binding is hashed lazily but captured up front. */
describe('request-state binding', () => {
  const kernel = new McpKernel({ name: 'k', version: '1' });
  kernel.registerTool(
    'ask',
    'asks for a colour',
    { type: 'object', properties: { item: { type: 'string' } } },
    async (args: { item: string }, _answers: unknown, ctx: McpContext) => {
      args.item = 'changed by the handler';
      const answer = await ctx.elicit('Colour?', { type: 'object', properties: { colour: { type: 'string' } } });
      return `${(answer.content as { colour: string }).colour} ${args.item}`;
    },
  );
  const call = async (args: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<any> =>
    kernel.handleRequest({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ask', arguments: args, ...extra, _meta: META },
    });

  it('binds to the arguments as sent, even when the handler changes its argument object', async () => {
    const first = await call({ item: 'car' });
    expect(first.result.resultType).toBe('input_required');
    const answer = { elicit_0: { action: 'accept', content: { colour: 'red' } } };
    const second = await call({ item: 'car' }, { inputResponses: answer, requestState: first.result.requestState });
    expect(second.result.content).toEqual([{ type: 'text', text: 'red changed by the handler' }]);
  });

  it('rejects the state for other arguments', async () => {
    const first = await call({ item: 'car' });
    const answer = { elicit_0: { action: 'accept', content: { colour: 'red' } } };
    const other = await call({ item: 'boat' }, { inputResponses: answer, requestState: first.result.requestState });
    expect(other.error.code).toBe(-32602);
  });

  it('binds an own "__proto__" argument (as JSON.parse makes one) as a member, not as a prototype', async () => {
    const sent = (value: string) => JSON.parse(`{"item":"car","__proto__":{"colour":"${value}"}}`);
    const first = await call(sent('blue'));
    expect(first.result.resultType).toBe('input_required');
    const answer = { elicit_0: { action: 'accept', content: { colour: 'red' } } };
    const same = await call(sent('blue'), { inputResponses: answer, requestState: first.result.requestState });
    expect(same.result.content).toEqual([{ type: 'text', text: 'red changed by the handler' }]);
    const other = await call(sent('green'), { inputResponses: answer, requestState: first.result.requestState });
    expect(other.error.code).toBe(-32602);
  });

  it('serialises nothing for a call that mints no state: arguments JSON cannot encode still reach the handler', async () => {
    const plain = new McpKernel({ name: 'k', version: '1' });
    plain.registerTool('kind', 'names the type of n', { type: 'object' }, (args: { n: unknown }) => typeof args.n);
    const answer: any = await plain.handleRequest({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'kind', arguments: { n: 10n }, _meta: META },
    });
    expect(answer.result.content).toEqual([{ type: 'text', text: 'bigint' }]);
  });

  it('binds to the arguments nested as sent, even when the handler changes a nested object', async () => {
    const nested = new McpKernel({ name: 'k', version: '1' });
    nested.registerTool(
      'ask',
      'asks for a colour',
      { type: 'object' },
      async (args: { item: { name: string }; tags: string[] }, _answers: unknown, ctx: McpContext) => {
        args.item.name = 'changed';
        args.tags.push('changed');
        const answer = await ctx.elicit('Colour?', { type: 'object', properties: { colour: { type: 'string' } } });
        return (answer.content as { colour: string }).colour;
      },
    );
    const send = (extra: Record<string, unknown> = {}): Promise<any> =>
      nested.handleRequest({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask', arguments: { item: { name: 'car' }, tags: ['a'] }, ...extra, _meta: META },
      });
    const first = await send();
    const answer = { elicit_0: { action: 'accept', content: { colour: 'red' } } };
    const second = await send({ inputResponses: answer, requestState: first.result.requestState });
    expect(second.result.content).toEqual([{ type: 'text', text: 'red' }]);
  });
});
