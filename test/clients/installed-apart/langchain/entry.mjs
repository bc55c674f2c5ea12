// What test/clients/langchain.e2e-spec.ts loads from this install (test/clients/support/installed-apart.ts).
export { MultiServerMCPClient } from '@langchain/mcp-adapters';
