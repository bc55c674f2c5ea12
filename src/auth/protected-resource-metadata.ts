import { McpConfigurationError } from '../server/errors/configuration-error.js';
import {
  RESOURCE_NOT_HTTP,
  RESOURCE_WITH_FRAGMENT,
  RESOURCE_NOT_ABSOLUTE,
} from '../server/errors/configuration-messages.js';
/** The well-known path of Protected Resource Metadata (RFC 9728 §3). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The RFC 9728 document: what a client needs to find the authorization server for this resource. */
export interface ProtectedResourceMetadata {
  resource: string;
  /** Absent when the app issues its own tokens and no authorization server hands them out. */
  authorization_servers?: string[];
  scopes_supported?: string[];
  bearer_methods_supported: string[];
  [member: string]: unknown;
}

/**
 * The canonical form of a resource URI (MCP authorization, RFC 8707): absolute, no fragment, lower-case scheme
 * and host, no trailing slash. Throws on anything that cannot be one.
 */
export function canonicalResourceUri(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch (error) {
    throw new McpConfigurationError(RESOURCE_NOT_ABSOLUTE(uri), { cause: error });
  }
  if (url.hash || uri.includes('#')) throw new McpConfigurationError(RESOURCE_WITH_FRAGMENT);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new McpConfigurationError(RESOURCE_NOT_HTTP);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}${url.search}`;
}

/** The path-inserted well-known path for an endpoint path: `/.well-known/oauth-protected-resource/mcp` for `/mcp`. */
export function wellKnownPathFor(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === ''
    ? PROTECTED_RESOURCE_METADATA_PATH
    : `${PROTECTED_RESOURCE_METADATA_PATH}${trimmed.startsWith('/') ? '' : '/'}${trimmed}`;
}

/** Where the metadata of a resource lives by default: its path-inserted well-known URL (RFC 9728 §3.1). */
export function defaultResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${wellKnownPathFor(url.pathname)}`;
}
