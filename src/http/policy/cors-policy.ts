import type { IncomingMessage, ServerResponse } from 'node:http';

export interface McpCorsOptions {
  /** Let the browser send cookies and HTTP auth with the request. Default false (bearer tokens need no cookies). */
  credentials?: boolean;
  /** How long a browser may cache a preflight answer, in seconds. Default 600. */
  maxAgeSeconds?: number;
}

/** Request headers a browser MCP client sends: the standard ones and every `Mcp-Param-*` of SEP-2243. */
const ALLOWED_HEADERS = new Set([
  'content-type',
  'accept',
  'authorization',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
]);
const PARAM_HEADER = /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Response headers a browser client must be able to read: auth challenges, the negotiated version, rate limits. */
const EXPOSED_HEADERS = 'WWW-Authenticate, MCP-Protocol-Version, Retry-After, RateLimit-Limit, RateLimit-Remaining';

/**
 * CORS for browser MCP clients (the MCP Inspector, web agents). It trusts exactly the origins the Host/Origin
 * policy trusts, so there is one allowlist. `Mcp-Param-*` names are open-ended, and a wildcard
 * `Access-Control-Allow-Headers` would not cover `Authorization`, so a preflight gets back the headers it asked
 * for, filtered to the ones MCP defines.
 */
export class CorsPolicy {
  private readonly credentials: boolean;
  private readonly maxAge: string;

  constructor(
    private readonly originAllowed: (origin: string) => boolean,
    options: McpCorsOptions = {},
  ) {
    this.credentials = options.credentials ?? false;
    this.maxAge = String(options.maxAgeSeconds ?? 600);
  }

  /** Sets the CORS headers of a request from an allowed origin; answers a preflight and returns true. */
  apply(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    if (typeof origin !== 'string') return false;
    res.setHeader('vary', 'Origin');
    const allowed = this.originAllowed(origin);
    if (allowed) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      if (this.credentials) res.setHeader('access-control-allow-credentials', 'true');
    }
    const requestedMethod = req.headers['access-control-request-method'];
    if (req.method !== 'OPTIONS' || typeof requestedMethod !== 'string') return false;
    // A preflight from a foreign origin gets no allow headers, so the browser stops there.
    if (allowed) {
      res.setHeader('access-control-allow-methods', 'POST');
      res.setHeader(
        'access-control-allow-headers',
        allowedRequestHeaders(req.headers['access-control-request-headers']),
      );
      res.setHeader('access-control-max-age', this.maxAge);
    }
    res.writeHead(204, { 'content-length': '0' }).end();
    return true;
  }
}

function allowedRequestHeaders(requested: string | undefined): string {
  const names = (requested ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => ALLOWED_HEADERS.has(name) || PARAM_HEADER.test(name));
  return [
    ...new Set(['content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'authorization', ...names]),
  ].join(', ');
}
