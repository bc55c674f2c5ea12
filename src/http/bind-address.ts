import { isIP } from 'node:net';
import type { HostOriginOptions } from './host-origin.policy.js';

/** Whether a listen host only reaches this machine: `localhost`, 127.0.0.0/8, `::1` (an unset host binds everywhere). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name === '::1' || name === '::ffff:127.0.0.1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * The start-up error for a server that listens beyond loopback while the Host allowlist is still the
 * loopback default: every remote client would be refused, and the fix people reach for (turning the check
 * off) removes DNS-rebinding protection. Returns null when the bind is safe or the choice was made explicitly.
 */
export function publicBindError(host: string | undefined, options: HostOriginOptions): string | null {
  if (isLoopbackHost(host) || options.enabled === false || options.allowedHosts !== undefined) return null;
  return (
    `MCP: the app listens on ${host ? `"${host}"` : 'every interface (no host given)'}, which is reachable from other machines, ` +
    'but no allowedHosts is configured. Either listen on loopback only, e.g. app.listen(3000, "127.0.0.1"), or name the ' +
    'host names clients use: McpModule.forRoot({ ..., allowedHosts: ["mcp.example.com"] }). See docs/security.md.'
  );
}
