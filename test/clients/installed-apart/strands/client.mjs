// Strands Agents' McpClient, run on Node 22 by test/clients/support/installed-apart.ts. The one argument is JSON:
// `server` (`{ url }` or `{ command, args }`), `model` (the scripted OpenAI-style API its agent talks to), the
// `prompt` for one agent turn, and the tool `calls` to make directly. It prints what it saw as one JSON line.
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Agent, McpClient } from '@strands-agents/sdk';
import { OpenAIModel } from '@strands-agents/sdk/models/openai';

const { server, model, prompt, calls } = JSON.parse(process.argv[2]);
const asked = [];
const mcp = new McpClient({
  ...(server.url ? { url: server.url } : { transport: new StdioClientTransport(server) }),
  // With this callback it declares elicitation and answers `elicitation/create`.
  elicitationCallback: async (_context, params) => {
    asked.push(params.message);
    return { action: 'accept', content: { confirm: true } };
  },
});
try {
  const tools = await mcp.listTools();
  const agent = new Agent({
    model: new OpenAIModel({ api: 'chat', modelId: 'scripted', apiKey: 'unused', clientConfig: { baseURL: model } }),
    tools: [mcp],
    printer: false,
  });
  const turn = await agent.invoke(prompt);
  // What the tools answered inside the turn: the toolResult blocks of the conversation.
  const toolResults = agent.messages
    .flatMap((message) => message.content)
    .filter((block) => block.type === 'toolResultBlock')
    .map((block) => ({ status: block.status, content: block.content.map((part) => part.text) }));
  const reply = turn.lastMessage.content.map((block) => block.text ?? '').join('');
  const results = [];
  for (const call of calls)
    results.push(
      await mcp.callTool(
        tools.find((tool) => tool.name === call.name),
        call.arguments,
      ),
    );
  console.log(JSON.stringify({ tools: tools.map((tool) => tool.name), toolResults, reply, results, asked }));
} finally {
  await mcp.disconnect();
}
