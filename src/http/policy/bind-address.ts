import { isIP } from 'node:net';
import type { HostOriginOptions } from './host-origin-policy.js';

/** Whether a listen host only reaches this machine: `localhost`, 127.0.0.0/8, `::1` (an unset host binds everywhere). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name === '::1' || name === '::ffff:127.0.0.1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * The start-up warning for a server that listens beyond loopback while only the loopback Host names are
 * allowed: the app starts and its other routes work, but the MCP endpoint refuses every remote client (403),
 * and the fix people reach for (turning the check off) removes DNS-rebinding protection. Null when the bind is
 * loopback-only or the choice was made explicitly.
 */
export function publicBindWarning(host: string | undefined, options: HostOriginOptions): string | null {
  if (isLoopbackHost(host) || options.hostOriginCheck === false || options.allowedHosts !== undefined) return null;
  return (
    `MCP: the app listens on ${host ? `"${host}"` : 'every interface (no host given)'}, but http.allowedHosts is not set, so the MCP ` +
    'endpoint answers only requests whose Host is localhost, 127.0.0.1 or [::1] and refuses others with 403. To serve ' +
    'other clients, name the host names they use: McpModule.forRoot({ ..., http: { allowedHosts: ["mcp.example.com"] } }); to ' +
    'silence this, listen on loopback only, e.g. app.listen(3000, "127.0.0.1"). See docs/security.md.'
  );
}
