// A 2025-era MCP server on stdio, built on the official SDK 1.x, that the gateway tests mount: `read_file`
// answers, `pid` tells the test which process to kill, `slow` is still running when it does, `ask` asks the
// caller for a name (stdio has one stream: the request says nothing of the call it belongs to).
import { Server } from 'mcp-sdk-v1/server/index.js';
import { StdioServerTransport } from 'mcp-sdk-v1/server/stdio.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from 'mcp-sdk-v1/types.js';

const server = new Server({ name: 'files', version: '1.0.0' }, { capabilities: { tools: {} } });
const object = (properties = {}) => ({ type: 'object', properties });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: 'read_file',
      description: 'Reads a file',
      inputSchema: object({ path: { type: 'string' } }),
      annotations: { readOnlyHint: true },
    },
    { name: 'pid', description: 'The process id', inputSchema: object() },
    { name: 'slow', description: 'Answers after a minute', inputSchema: object() },
    { name: 'ask', description: 'Asks the caller for a name', inputSchema: object() },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  if (name === 'read_file') return { content: [{ type: 'text', text: `contents of ${args.path}` }] };
  if (name === 'pid') return { content: [{ type: 'text', text: String(process.pid) }] };
  if (name === 'ask') {
    const requestedSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const answer = await server.request(
      { method: 'elicitation/create', params: { message: 'Name?', requestedSchema } },
      ElicitResultSchema,
    );
    return {
      content: [{ type: 'text', text: answer.action === 'accept' ? `Hi ${answer.content.name}` : answer.action }],
    };
  }
  if (name === 'slow') {
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    return { content: [{ type: 'text', text: 'done' }] };
  }
  throw new Error(`unknown tool ${name}`);
});

await server.connect(new StdioServerTransport());
