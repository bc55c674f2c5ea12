import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Args, McpCtx, McpModule, MCPServer, Tool, type McpContext } from '../../src/index.js';
import { mcpMessage } from '../../src/testing/index.js';
import { compiledSurface } from '../support/export-surface.js';

// `@Tool` hands its options to the same registration `addTool` takes; these two the module sets itself, from the
// method's guards (`hideWhenDenied`) and `@RequireScopes`.
const SET_BY_THE_MODULE = ['visible', 'requiredScopes'];

const CONFIRM = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } as const;

let deletions = 0;

@Injectable()
class Files {
  @Tool({
    description: 'Deletes a file once the user confirms',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    singleUseState: true,
    validateArguments: false,
  })
  async delete_file(@Args('path') path: unknown, @McpCtx() ctx: McpContext) {
    const answer = await ctx.elicit('Delete it?', CONFIRM, { key: 'confirm' });
    if (answer.content?.confirm !== true) return 'Nothing was deleted.';
    deletions++;
    return `Deleted ${String(path)}`;
  }
}

describe('ToolOptions', () => {
  it('types every registration option @Tool passes on, as the compiler reads the two types', async () => {
    const { typeKeys } = await compiledSurface();
    const typed = new Set([...typeKeys.ToolOptions, ...SET_BY_THE_MODULE]);
    expect(typeKeys.ToolRegistrationOptions.filter((key) => !typed.has(key))).toEqual([]);
    // The two types are read, not empty: what the README's deletion example writes is in both.
    expect(typeKeys.ToolOptions).toEqual(expect.arrayContaining(['singleUseState', 'validateArguments']));
  }, 120_000);

  it('honours singleUseState and validateArguments written in @Tool, as the registration does', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'files', version: '1.0.0', requestState: { secret: 'x'.repeat(32) } })],
      providers: [Files],
    }).compile();
    await moduleRef.init();
    try {
      const server = moduleRef.get(MCPServer);
      const call = (id: number, extra: Record<string, unknown> = {}) =>
        server.handleRequest(
          mcpMessage(
            'tools/call',
            { name: 'delete_file', arguments: { path: 42 }, ...extra },
            { id, clientCapabilities: { elicitation: {} } },
          ),
        ) as Promise<{ result?: { resultType?: string; requestState?: string; content?: unknown }; error?: unknown }>;
      // validateArguments: false lets a number through where the schema says string; validated, it is -32602.
      const first = await call(1);
      expect(first.error).toBeUndefined();
      expect(first.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
      const retry = { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } };
      const answered = await call(2, { ...retry, requestState: first.result!.requestState });
      expect(answered.result?.content).toEqual([{ type: 'text', text: 'Deleted 42' }]);
      // singleUseState: the same confirmation replayed is refused and the handler does not run again.
      const replay = await call(3, { ...retry, requestState: first.result!.requestState });
      expect(replay.error).toMatchObject({ code: -32602, message: 'requestState has already been used' });
      expect(deletions).toBe(1);
    } finally {
      await moduleRef.close();
    }
  });
});
