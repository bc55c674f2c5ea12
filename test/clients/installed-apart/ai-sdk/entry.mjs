// What test/clients/ai-sdk.e2e-spec.ts loads from this install (test/clients/support/installed-apart.ts).
export * as v1 from 'ai-sdk-mcp-v1';
export * as v2 from 'ai-sdk-mcp-v2';
