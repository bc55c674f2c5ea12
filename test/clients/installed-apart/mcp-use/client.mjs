// mcp-use's MCPClient (its 'mcp-use/client' entry: the main one imports the optional langchain), run on Node 22 by test/clients/support/installed-apart.ts. The one argument is JSON:
// `server` (`{ url }` or `{ command, args }`) and the tool `calls` to make; it prints what the client saw as one
// JSON line. Its callbacks answer the server's requests: it declares elicitation and sampling with them.
import { MCPClient } from 'mcp-use/client';

const { server, calls } = JSON.parse(process.argv[2]);
const asked = [];
const client = new MCPClient({
  mcpServers: {
    app: {
      ...server,
      onElicitation: async (params) => {
        asked.push(`elicitation: ${params.message}`);
        return { action: 'accept', content: { confirm: true } };
      },
      onSampling: async (params) => {
        asked.push(`sampling: ${params.messages[0].content.text}`);
        return { role: 'assistant', model: 'scripted', content: { type: 'text', text: 'Paris, as ever' } };
      },
    },
  },
});
try {
  const session = await client.createSession('app');
  const tools = (await session.listTools()).map((tool) => tool.name);
  const results = [];
  for (const call of calls) {
    const { content, isError } = await session.callTool(call.name, call.arguments);
    results.push({ content, isError: isError ?? false });
  }
  console.log(JSON.stringify({ tools, results, asked }));
} finally {
  await client.closeAllSessions();
}
