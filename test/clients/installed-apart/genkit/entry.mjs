// What test/clients/genkit.e2e-spec.ts loads from this install (test/clients/support/installed-apart.ts).
export { createMcpClient } from '@genkit-ai/mcp';
export { genkit } from 'genkit';
