import { InvalidTokenError, insufficientScope, type McpModuleOptions } from '../../src/index.js';
import { scopesOf } from '../../src/auth/tokens/principal.js';

/**
 * The SEP-2350 scope-challenge mode (`MCP_SCOPE_CHALLENGE=1`): the endpoint is a resource server that accepts
 * exactly two opaque fixture tokens, and four primitives need two scopes each, so an under-scoped call gets a
 * 403 whose `insufficient_scope` challenge names every scope the operation needs, and a retry with the full
 * token succeeds. Without the mode nothing is required and no token is asked for: every other scenario (and the
 * stdio fixture) runs unchanged.
 */
export const SCOPE_LOW_TOKEN = 'mcp-conformance-scope-low';
export const SCOPE_FULL_TOKEN = 'mcp-conformance-scope-full';

const scoped = process.env.MCP_SCOPE_CHALLENGE === '1';
const BASELINE = 'mcp:conformance:baseline';
const TEMPLATE_SCOPE = 'mcp:conformance:resources:template:';

/** The scopes `@RequireScopes` gets for one fixture primitive: these in the mode, none otherwise. */
export function fixtureScopes(...scopes: string[]): string[] {
  return scoped ? scopes : [];
}

/**
 * A scope that depends on the URI (`test://template/123/data` needs `…:template:123`) cannot be declared
 * statically: the handler asks for it, together with the template's own, in one challenge.
 */
export function requireTemplateScopes(principal: unknown, id: string): void {
  if (!scoped) return;
  const needed = ['mcp:conformance:resources:read', `${TEMPLATE_SCOPE}${id}`];
  const granted = new Set(scopesOf(principal));
  if (!needed.every((scope) => granted.has(scope))) throw insufficientScope(`resource template id ${id}`, needed);
}

const FULL_SCOPES = [
  BASELINE,
  'mcp:conformance:tools:call',
  'mcp:conformance:tools:test_simple_text',
  'mcp:conformance:resources:read',
  'mcp:conformance:resources:static',
  `${TEMPLATE_SCOPE}123`,
  'mcp:conformance:prompts:get',
  'mcp:conformance:prompts:test_simple_prompt',
];

const PRINCIPALS: Record<string, { sub: string; scope: string }> = {
  [SCOPE_LOW_TOKEN]: { sub: 'conformance-low', scope: BASELINE },
  [SCOPE_FULL_TOKEN]: { sub: 'conformance-full', scope: FULL_SCOPES.join(' ') },
};

/** The `auth` option of the mode: the endpoint at `resource` (the fixture's own URL), and the two tokens. */
export function scopeChallengeAuth(env: NodeJS.ProcessEnv): McpModuleOptions['auth'] {
  if (!scoped) return undefined;
  return {
    resource: env.MCP_RESOURCE ?? `http://127.0.0.1:${env.PORT ?? 3000}/mcp`,
    scopesSupported: FULL_SCOPES,
    verify: (token) => {
      const principal = PRINCIPALS[token];
      if (!principal) throw new InvalidTokenError('Not a conformance fixture token');
      return { ...principal };
    },
  };
}
