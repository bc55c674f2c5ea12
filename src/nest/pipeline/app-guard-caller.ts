import { credentialExpiryOf } from '../../auth/tokens/principal.js';
import type { HttpAuthentication, McpHttpAuthenticator } from '../../http/mcp-http-options.js';

/**
 * The caller of an endpoint the module does not authenticate itself: whoever the app's own guard put on
 * `request.user` (Passport's convention, which Nest's guards follow), or anonymous. Tasks, request state and
 * 2025-era replies are then bound to that user, as they are to a token's caller; no scopes are granted (a
 * primitive with `requiredScopes` needs the `auth` option). It refuses nobody: the app's guard already decided.
 */
export const appGuardCaller: McpHttpAuthenticator = {
  authenticate(_req, httpRequest): HttpAuthentication {
    const user = (httpRequest as { user?: unknown } | undefined)?.user;
    if (typeof user !== 'object' || user === null) return ANONYMOUS;
    return { ok: true, principal: user, scopes: [], credentialExpiresAt: credentialExpiryOf(user) };
  },
  insufficientScopeHeaders: () => ({}),
};

const ANONYMOUS: HttpAuthentication = Object.freeze({ ok: true, principal: undefined, scopes: [] });
