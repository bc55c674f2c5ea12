import type { Server } from 'node:http';

export interface ServerTimeouts {
  /** Time to receive a whole request (headers and body); a stalled upload gets 408. Default 30 s. */
  requestTimeoutMs?: number;
  /** Time to receive the request headers (slowloris). Default 10 s. */
  headersTimeoutMs?: number;
  /** How long an idle keep-alive socket stays open. Default 5 s (Node's). */
  keepAliveTimeoutMs?: number;
  /** How often Node enforces the two timeouts above. Default 1 s; takes effect only before `listen`. */
  checkIntervalMs?: number;
}

// Node's own defaults: a value still equal to one of these was never chosen by the application.
const NODE_DEFAULTS = {
  requestTimeout: 300_000,
  headersTimeout: 60_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 30_000,
};

/**
 * Sets Node's server timeouts so a slow or stalled client cannot hold a socket for minutes (Node 20's defaults
 * let a partial body hold one for about 5.5 min). None of them limits a long response such as an SSE stream.
 * Call it on a server you create yourself, before `listen`. With `onlyDefaults`, values the application
 * already changed from Node's defaults are left alone (this is how McpModule applies it to Nest's server).
 */
export function applyServerTimeouts(server: Server, timeouts: ServerTimeouts = {}, onlyDefaults = false): void {
  const wanted = {
    requestTimeout: timeouts.requestTimeoutMs ?? 30_000,
    headersTimeout: timeouts.headersTimeoutMs ?? 10_000,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs ?? 5_000,
    connectionsCheckingInterval: timeouts.checkIntervalMs ?? 1_000,
  };
  const target = server as Server & { connectionsCheckingInterval?: number };
  for (const key of Object.keys(wanted) as Array<keyof typeof wanted>) {
    if (onlyDefaults && target[key] !== undefined && target[key] !== NODE_DEFAULTS[key]) continue;
    target[key] = wanted[key];
  }
  // Node requires headersTimeout <= requestTimeout when both are set.
  if (target.requestTimeout > 0 && target.headersTimeout > target.requestTimeout)
    target.headersTimeout = target.requestTimeout;
}
