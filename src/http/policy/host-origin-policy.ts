/**
 * DNS-rebinding protection: a browser page on a foreign origin can reach a server on loopback by making its
 * own host name resolve to 127.0.0.1, so both the Host a request names and the Origin it comes from must be
 * ones this server answers to. Pure: headers in, verdict out.
 */
export interface HostOriginOptions {
  /**
   * Host names (optionally with :port) this server answers to besides the loopback names (localhost,
   * 127.0.0.1 and [::1]), which are always allowed so local tools keep working.
   */
  allowedHosts?: readonly string[];
  /** Extra origins (scheme://host[:port]) allowed besides http(s) origins on an allowed host. */
  allowedOrigins?: readonly string[];
  /** Whether Host and Origin are checked at all: turn it off only behind a proxy that already does it. Default true. */
  hostOriginCheck?: boolean;
}

export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

export class HostOriginPolicy {
  private readonly hosts: ReadonlySet<string>;
  private readonly origins: ReadonlySet<string>;
  private readonly enabled: boolean;
  private lastAllowed: string | undefined;

  constructor(options: HostOriginOptions = {}) {
    this.enabled = options.hostOriginCheck ?? true;
    this.hosts = new Set([...LOOPBACK_HOSTS, ...(options.allowedHosts ?? [])].map((h) => h.toLowerCase()));
    this.origins = new Set((options.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/+$/, '')));
  }

  /** Returns why the request is refused, or null when it may proceed. */
  check(host: string | undefined, origin: string | undefined): string | null {
    if (!this.enabled) return null;
    if (!host || !this.hostAllowed(host.toLowerCase())) {
      return `Forbidden: Host ${JSON.stringify(host ?? '')} is not allowed; add it to the allowedHosts option if this server should answer it`;
    }
    if (origin !== undefined && !this.originAllowed(origin)) {
      return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed; add it to the allowedOrigins option if this server should answer it`;
    }
    return null;
  }

  private hostAllowed(host: string): boolean {
    // A server's clients name it the same way request after request: the last Host allowed is not parsed again.
    if (host === this.lastAllowed || this.hosts.has(host)) return true;
    const name = hostnameOf(host);
    if (name === null || !this.hosts.has(name)) return false;
    this.lastAllowed = host;
    return true;
  }

  /** Whether a request from this Origin may proceed (CORS trusts the same origins). */
  originAllowed(origin: string): boolean {
    const normalized = origin.toLowerCase();
    if (this.origins.has(normalized)) return true;
    let url: URL;
    try {
      url = new URL(normalized);
    } catch {
      return false;
    }
    // An opaque origin ("null", file:, data:) names no host we could trust.
    if (url.origin === 'null' || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
    return this.hostAllowed(url.host);
  }
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]`, `[v6]:port`), or null when malformed. */
function hostnameOf(host: string): string | null {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return null;
    const rest = host.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    return host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  if (colon < 0) return host;
  if (!/^\d{1,5}$/.test(host.slice(colon + 1))) return null;
  return host.slice(0, colon);
}
