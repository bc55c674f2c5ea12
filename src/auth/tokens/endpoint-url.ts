import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { URL_INSECURE_HTTP, URL_NOT_ABSOLUTE, URL_NOT_HTTPS } from '../../server/errors/configuration-messages.js';
/**
 * Checks the URL of an endpoint the resource server trusts (JWKS, introspection) once, at start-up. Keys or
 * token verdicts fetched over plain HTTP can be swapped by anyone on the path, so `http:` is refused unless the
 * host is this machine (a sidecar, a test) or the operator says the network is trusted (`allowInsecureHttp`).
 */
export function trustedEndpointUrl(option: string, value: string, allowInsecureHttp = false): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new McpConfigurationError(URL_NOT_ABSOLUTE(option, value), { cause: error });
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol !== 'http:') throw new McpConfigurationError(URL_NOT_HTTPS(option, url.protocol));
  if (!allowInsecureHttp && !isLoopback(url.hostname)) {
    throw new McpConfigurationError(URL_INSECURE_HTTP(option, url.host));
  }
  return url;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}
