import type { McpToolRegistration } from '../../src/index.js';

/** A tool whose rounds must run at most once (`singleUseState`): it asks to confirm under `confirm`, then transfers. */
export function transferTool(confirmSchema: Record<string, unknown>): McpToolRegistration {
  return {
    name: 'transfer',
    description: 'Moves money once per confirmation',
    inputSchema: { type: 'object' },
    singleUseState: true,
    handler: async (_args, _responses, ctx) => {
      await ctx.elicit('Transfer?', confirmSchema, { key: 'confirm' });
      return 'transferred';
    },
  };
}
