// VoltAgent's MCPConfiguration, run on Node 22 by test/clients/support/installed-apart.ts. The one argument is
// JSON: `server` (VoltAgent's own `{ type: 'http', url }` or `{ type: 'stdio', command, args }`), `model` (the
// scripted OpenAI-style API its agent talks to), the `prompt` for one agent turn, and the tool `calls` to make
// directly through the tools it built. It prints what it saw as one JSON line.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Agent, MCPConfiguration } from '@voltagent/core';

const { server, model, prompt, calls } = JSON.parse(process.argv[2]);
const asked = [];
const mcp = new MCPConfiguration({ servers: { app: server } });
try {
  const { app } = await mcp.getClients();
  app.elicitation.setHandler(async (request) => {
    asked.push(request.message);
    return { action: 'accept', content: { confirm: true } };
  });
  const tools = await mcp.getTools();
  const agent = new Agent({
    name: 'scripted',
    instructions: 'Use the tools.',
    model: createOpenAICompatible({ name: 'scripted', baseURL: model, apiKey: 'unused' }).chatModel('scripted'),
    tools,
  });
  const turn = await agent.generateText(prompt);
  const toolResults = turn.steps.flatMap((step) =>
    step.toolResults.map(({ toolName, output }) => ({ toolName, output })),
  );
  const results = [];
  for (const call of calls) results.push(await tools.find((tool) => tool.name === call.name).execute(call.arguments));
  console.log(JSON.stringify({ tools: tools.map((tool) => tool.name), toolResults, reply: turn.text, results, asked }));
} finally {
  await mcp.disconnect();
}
// VoltAgent keeps timers of its own (its observability) that hold the process open after the work is done.
process.exit(0);
