import type { Implementation } from '../../protocol/mcp-types.js';

/** The media type of a Server Card (SEP-2127). */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
/** Where a site lists its MCP servers, each by its card. */
export const MCP_CATALOG_PATH = '/.well-known/mcp/catalog.json';

/** What a host reads before it connects: who the server is and where it answers. Never its tools. */
export interface ServerCard {
  $schema: string;
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Implementation['icons'];
  remotes: Array<{ type: 'streamable-http'; url: string }>;
}

/** The card of a server from its `serverInfo` (what `server/discover` names), served at `endpoint`. */
export function serverCardOf(info: Implementation, endpoint: string): ServerCard {
  const card: ServerCard = { $schema: SERVER_CARD_SCHEMA, name: info.name, version: info.version, remotes: [] };
  if (info.title !== undefined) card.title = info.title;
  if (info.description !== undefined) card.description = info.description;
  if (info.websiteUrl !== undefined) card.websiteUrl = info.websiteUrl;
  if (info.icons !== undefined) card.icons = info.icons;
  card.remotes.push({ type: 'streamable-http', url: endpoint });
  return card;
}

/** A site's catalog: one entry per server, naming its card. */
export function catalogOf(domain: string, cards: ReadonlyArray<{ card: ServerCard; url: string }>) {
  return {
    specVersion: 'draft',
    entries: cards.map(({ card, url }) => ({
      identifier: `urn:air:${domain}:${card.name}`,
      displayName: card.title ?? card.name,
      type: SERVER_CARD_MEDIA_TYPE,
      url,
    })),
  };
}
