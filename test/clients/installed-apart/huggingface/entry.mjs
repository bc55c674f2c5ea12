// What test/clients/huggingface-mcp-client.e2e-spec.ts loads from this install
// (test/clients/support/installed-apart.ts).
export { McpClient } from '@huggingface/mcp-client';
