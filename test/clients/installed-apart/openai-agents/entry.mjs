// What test/clients/openai-agents.e2e-spec.ts loads from this install (test/clients/support/installed-apart.ts).
export { MCPServerStdio, MCPServerStreamableHttp } from '@openai/agents';
