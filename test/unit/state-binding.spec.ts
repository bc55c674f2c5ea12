import { type McpContext } from '../../src/index.js';
import { McpKernel } from '../../src/core/index.js';
import { StateBinding } from '../../src/server/input/request-state-codec.js';

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

  describe('the copy of the arguments is taken only when the call can seal a state', () => {
    /** An argument member that counts how often it is serialised or copied (both go through `toJSON`). */
    const counted = () => {
      const member = { reads: 0, toJSON: () => (member.reads++, 'when') };
      return member;
    };
    const kernelWith = (handler: (args: any, answers: unknown, ctx: McpContext) => unknown) => {
      const kernel = new McpKernel({ name: 'k', version: '1' });
      kernel.registerTool('t', 'a tool', { type: 'object' }, handler);
      return (
        args: unknown,
        capabilities: Record<string, unknown>,
        extra: Record<string, unknown> = {},
      ): Promise<any> =>
        kernel.handleRequest({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 't',
            arguments: args,
            ...extra,
            _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': capabilities },
          },
        });
    };

    it('a call whose client can be asked nothing copies nothing, and a tool that asks anyway gets -32021', async () => {
      const call = kernelWith(async (_args, _answers, ctx) => {
        const answer = await ctx.elicit('Colour?', { type: 'object' });
        return answer.action;
      });
      const when = counted();
      const answer = await call({ when, list: [when] }, {});
      expect(answer.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
      expect(when.reads).toBe(0);
    });

    it('for a client that can be asked, the arguments are copied once before the handler and never serialised', async () => {
      const call = kernelWith((args: { n: number }) => args.n + 1);
      const when = counted();
      const answer = await call({ n: 1, when }, { elicitation: {} });
      expect(answer.result.content).toEqual([{ type: 'text', text: '2' }]);
      // Once, by the copy taken before the handler (it could have asked); no canonical form, no hash, as it did not.
      expect(when.reads).toBe(1);
    });

    it('a client that can be asked gets a state bound to the arguments as sent, read before the handler ran', async () => {
      const call = kernelWith(async (args: { item: { name: string } }, _answers, ctx) => {
        args.item.name = 'changed';
        const answer = await ctx.sample('Colour?');
        return answer.model;
      });
      const first = await call({ item: { name: 'car' } }, { sampling: {} });
      expect(first.result.resultType).toBe('input_required');
      const answers = { sample_0: { role: 'assistant', model: 'm', content: { type: 'text', text: 'red' } } };
      const second = await call(
        { item: { name: 'car' } },
        { sampling: {} },
        {
          inputResponses: answers,
          requestState: first.result.requestState,
        },
      );
      expect(second.result.content).toEqual([{ type: 'text', text: 'm' }]);
      const other = await call(
        { item: { name: 'changed' } },
        { sampling: {} },
        {
          inputResponses: answers,
          requestState: first.result.requestState,
        },
      );
      expect(other.error.code).toBe(-32602);
    });
  });

  describe('StateBinding', () => {
    const caller = 'alice';
    it('digests the arguments as captured, whatever is done to them afterwards', () => {
      const args = { item: { name: 'car' }, tags: ['a'] };
      const captured = new StateBinding('tools/call', 't', args, caller);
      captured.capture();
      args.item.name = 'changed';
      args.tags.push('b');
      const pristine = new StateBinding('tools/call', 't', { item: { name: 'car' }, tags: ['a'] }, caller);
      expect(captured.digest).toBe(pristine.digest);
    });

    it('without a capture, digests the arguments as they are when first asked, in JSON form', () => {
      const args = { when: new Date(0), gone: undefined, list: [undefined, 1] };
      const lazy = new StateBinding('tools/call', 't', args, caller);
      const json = new StateBinding('tools/call', 't', JSON.parse(JSON.stringify(args)), caller);
      expect(lazy.digest).toBe(json.digest);
      expect(lazy.digest).not.toBe(new StateBinding('tools/call', 't', { list: [null, 2] }, caller).digest);
    });
  });
});
