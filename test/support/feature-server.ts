import type { MCPServer } from '../../src/index.js';

/**
 * Registers one of each primitive the client-facing tests exercise: a plain tool, a tool with progress, one
 * with an `x-mcp-header` parameter, a multi-round tool (form elicitation), a failing tool, a resource, and a
 * prompt with a completer.
 */
export function registerFeatures(server: MCPServer): void {
  server.registerTool(
    'add',
    'Adds two numbers',
    { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    (a: { a: number; b: number }) => a.a + a.b,
  );
  server.registerTool(
    'countdown',
    'Counts down with progress',
    { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    async (a: { n: number }, _i, ctx) => {
      for (let i = 1; i <= a.n; i++) ctx.reportProgress({ progress: i, total: a.n });
      return 'done';
    },
  );
  server.registerTool(
    'weather',
    'Weather in a region',
    { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] },
    (a: { region: string }) => `sunny in ${a.region}`,
  );
  server.registerTool(
    'book',
    'Books a table after asking for the party size',
    { type: 'object', properties: {} },
    async (_a, _i, ctx) => {
      const size = await ctx.elicit('How many people?', {
        type: 'object',
        properties: { people: { type: 'integer' } },
        required: ['people'],
      });
      if (size.action !== 'accept') return 'cancelled';
      const when = await ctx.elicit('What time?', {
        type: 'object',
        properties: { time: { type: 'string' } },
        required: ['time'],
      });
      return `table for ${String(size.content?.people)} at ${String(when.content?.time)}`;
    },
  );
  server.registerTool('explode', 'Always fails', { type: 'object', properties: {} }, () => {
    throw new Error('kaboom');
  });
  server.addResource({
    uri: 'memo://greeting',
    name: 'greeting',
    mimeType: 'text/plain',
    handler: () => 'hello from a resource',
  });
  server.addPrompt({
    name: 'greet',
    description: 'Greets someone',
    arguments: [{ name: 'who', required: true }],
    handler: (args) => `Say hello to ${args.who}`,
    complete: { who: (value) => ['alice', 'bob', 'carol'].filter((n) => n.startsWith(value)) },
  });
}
