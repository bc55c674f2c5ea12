/**
 * Every message the Nest layer logs, in one place (as `@nestjs/schedule` keeps its own). What it throws at start-up
 * is with every layer's, in src/server/errors/configuration-messages.ts.
 */

export const VISIBILITY_GUARD_FAILED = (tool: string) =>
  `A guard of tool "${tool}" threw while deciding whether tools/list shows it; the tool is hidden from this list`;

export const GENERATED_STATE_SECRET = (server: string) =>
  `MCP server "${server}": no requestState.secret configured, so multi-round request state is signed with a ` +
  'random per-process key. Deployments with several instances need a shared secret (McpModule option requestState.secret).';
