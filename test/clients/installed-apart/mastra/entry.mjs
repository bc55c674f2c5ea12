// What test/clients/mastra.e2e-spec.ts loads from this install (test/clients/support/installed-apart.ts).
export { MCPClient } from '@mastra/mcp';
