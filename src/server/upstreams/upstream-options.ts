import type { Implementation } from '../../protocol/mcp-types.js';

/** Who a mounted call is made for, as `upstreams[].headers` sees it. */
export interface McpUpstreamCaller {
  /** What `auth` established for the caller (undefined for the handshake and the lists, which no caller makes). */
  principal?: unknown;
  /** The transport's request object (the Express or Fastify request over HTTP). */
  httpRequest?: unknown;
  clientInfo?: Implementation;
}

/** The headers an upstream receives: fixed, or made per caller (a token exchange). */
export type McpUpstreamHeaders =
  Record<string, string> | ((caller: McpUpstreamCaller) => Record<string, string> | Promise<Record<string, string>>);

interface McpUpstreamCommon {
  /**
   * What the upstream's tools and prompts are named under: `<prefix>_<name>`. `''` mounts them unchanged (one
   * such entry at most). Resources and templates keep their own URIs.
   */
  prefix: string;
  /**
   * OAuth scopes a caller needs for every mounted tool, prompt and resource of this upstream, as
   * `@RequireScopes` takes them: without them it is hidden from lists and a call gets 403.
   */
  scopes?: string[];
  /** The most bytes one response of the upstream may carry. Default `http.maxResponseBytes` (4 MiB). */
  maxResponseBytes?: number;
  /** How long the upstream's lists are served from the cache before they are asked again. Default 300 000 (5 min). */
  listTtlMs?: number;
  /** How long a call waits for the upstream. Default 60 000; the call's own deadline ends it sooner. */
  timeoutMs?: number;
}

/** An upstream over Streamable HTTP, of either era (found by `server/discover`, then `initialize`). */
export interface McpHttpUpstream extends McpUpstreamCommon {
  url: string;
  /**
   * What the upstream receives as headers. Without it the upstream receives none of the caller's: no
   * `Authorization`, no cookie. A function is called per call with the MCP caller.
   */
  headers?: McpUpstreamHeaders;
}

/** An upstream run as a child process speaking MCP on stdio, restarted with backoff when it dies. */
export interface McpStdioUpstream extends McpUpstreamCommon {
  command: string;
  args?: string[];
  /** Where the command runs (and its relative arguments resolve). Default `process.cwd()`. */
  cwd?: string;
  /** The child's environment, besides the safe default variables (PATH, HOME, ...). */
  env?: Record<string, string>;
}

export type McpUpstreamOptions = McpHttpUpstream | McpStdioUpstream;

/** Every key an entry of `upstreams` may have (checked with the module's options). */
export const UPSTREAM_OPTION_KEYS = {
  prefix: true,
  url: true,
  headers: true,
  command: true,
  args: true,
  cwd: true,
  env: true,
  scopes: true,
  maxResponseBytes: true,
  listTtlMs: true,
  timeoutMs: true,
} as const;

export function isStdioUpstream(entry: McpUpstreamOptions): entry is McpStdioUpstream {
  return typeof (entry as McpStdioUpstream).command === 'string';
}

/** How an upstream is named in errors: its prefix, or where it is when it has none. */
export function upstreamLabel(entry: McpUpstreamOptions): string {
  if (entry.prefix !== '') return `"${entry.prefix}"`;
  return isStdioUpstream(entry) ? `"${[entry.command, ...(entry.args ?? [])].join(' ')}"` : `"${entry.url}"`;
}
