import type { Icon } from '../../protocol/mcp-types.js';
import { McpConfigurationError } from '../errors/configuration-error.js';
import { REGISTRY_ENTRY_REFUSED } from '../errors/configuration-messages.js';
import type { ServerIdentity } from '../server-info.js';
import { serverInfoOf } from '../server-info.js';
import { registryRefusals } from './registry-entry-rules.js';

/** The MCP Registry's `server.json` schema this generator writes. */
export const REGISTRY_SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

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
  /** The source repository on GitHub or GitLab, e.g. `{ url: 'https://github.com/acme/weather', source: 'github' }`. */
  repository?: { url: string; source: string; id?: string; subfolder?: string };
  /**
   * Anything else for downstream registries, under `_meta["io.modelcontextprotocol.registry/publisher-provided"]`:
   * a JSON object of at most 4096 bytes.
   */
  publisherProvided?: Record<string, unknown>;
}

/**
 * The MCP Registry entry (`server.json`) of a server, from the same `name`, `version` and `info` its
 * `serverInfo`, `server/discover` and Server Card carry, so the three never drift: write it at build time and
 * publish it with `mcp-publisher publish`. Throws `McpConfigurationError` naming, in one message, every field the
 * registry would refuse (docs/discovery.md lists its rules), so a release script stops before the upload would.
 */
export function registryServerJson(
  server: ServerIdentity,
  options: RegistryServerJsonOptions,
): Record<string, unknown> {
  const info = serverInfoOf(server);
  const problems = registryRefusals(info, options);
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
