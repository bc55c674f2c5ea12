import type { Icon } from '../../protocol/mcp-types.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { REGISTRY_ENTRY, REGISTRY_ENTRY_REFUSED } from '../errors/configuration-messages.js';
import type { ServerIdentity } from '../server-info.js';
import { serverInfoOf } from '../server-info.js';

/** The MCP Registry's `server.json` schema this generator writes. */
export const REGISTRY_SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

// The registry's rules for the fields taken from the server's identity (server.schema.json 2025-12-11).
const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const REMOTE_URL = /^https?:\/\/\S+$/;
// A range, not a version: an operator first, a wildcard component (`1.x`, `1.*`), white space or `||`.
const VERSION_RANGE = /^[\^~<>=]|(^|\.)[*xX](\.|$)|\s|\|\|/;

/** Where the server runs, besides its identity: its public endpoint, its npm package, its source. */
export interface RegistryServerJsonOptions {
  /** The endpoint's public URL, listed as a `streamable-http` remote (the URL the Server Card names). */
  url?: string;
  /**
   * The npm package that runs the server on stdio (`npx <identifier>`): its `package.json` must carry the
   * server's `name` as `mcpName`, which is how the registry ties the package to the entry. `version` defaults
   * to the server's.
   */
  npm?: { identifier: string; version?: string };
  /** The source repository, e.g. `{ url: 'https://github.com/acme/weather', source: 'github' }`. */
  repository?: { url: string; source: string; id?: string; subfolder?: string };
  /** Anything else for downstream registries, under `_meta["io.modelcontextprotocol.registry/publisher-provided"]`. */
  publisherProvided?: Record<string, unknown>;
}

/**
 * The MCP Registry entry (`server.json`) of a server, from the same `name`, `version` and `info` its
 * `serverInfo`, `server/discover` and Server Card carry, so the three never drift: write it at build time and
 * publish it with `mcp-publisher publish`. Throws `McpConfigurationError` naming every field the registry would
 * refuse (a name that is not `namespace/name`, no `info.description` or one over 100 characters, a version range).
 */
export function registryServerJson(
  server: ServerIdentity,
  options: RegistryServerJsonOptions,
): Record<string, unknown> {
  const info = serverInfoOf(server);
  const problems: string[] = [];
  if (!NAME.test(info.name) || info.name.length < 3 || info.name.length > 200)
    problems.push(REGISTRY_ENTRY.name(info.name));
  if (!info.description || info.description.length > 100) problems.push(REGISTRY_ENTRY.description);
  if (info.title !== undefined && (info.title.length === 0 || info.title.length > 100))
    problems.push(REGISTRY_ENTRY.title);
  if (VERSION_RANGE.test(info.version) || info.version.length > 255)
    problems.push(REGISTRY_ENTRY.version(info.version));
  if (options.url === undefined && options.npm === undefined) problems.push(REGISTRY_ENTRY.nowhere);
  if (options.url !== undefined && !REMOTE_URL.test(options.url)) problems.push(REGISTRY_ENTRY.url(options.url));
  if (options.npm && (!options.npm.identifier || options.npm.version === 'latest')) problems.push(REGISTRY_ENTRY.npm);
  if (problems.length > 0) throw new McpConfigurationError(REGISTRY_ENTRY_REFUSED(problems));

  const entry: Record<string, unknown> = {
    $schema: REGISTRY_SERVER_SCHEMA,
    name: info.name,
    description: info.description,
    version: info.version,
  };
  if (info.title !== undefined) entry.title = info.title;
  if (info.websiteUrl !== undefined) entry.websiteUrl = info.websiteUrl;
  if (info.icons !== undefined) entry.icons = info.icons.map(registryIcon);
  if (options.repository) entry.repository = { ...options.repository };
  if (options.url !== undefined) entry.remotes = [{ type: 'streamable-http', url: options.url }];
  if (options.npm)
    entry.packages = [
      {
        registryType: 'npm',
        identifier: options.npm.identifier,
        version: options.npm.version ?? info.version,
        transport: { type: 'stdio' },
      },
    ];
  if (options.publisherProvided)
    entry._meta = { 'io.modelcontextprotocol.registry/publisher-provided': { ...options.publisherProvided } };
  return entry;
}

/** An icon in the registry's shape: the same members, none of the extra ones an app's object may carry. */
function registryIcon({ src, mimeType, sizes, theme }: Icon): Icon {
  return Object.fromEntries(
    Object.entries({ src, mimeType, sizes, theme }).filter(([, value]) => value !== undefined),
  ) as unknown as Icon;
}
