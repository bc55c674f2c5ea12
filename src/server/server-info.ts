import type { Implementation } from '../protocol/mcp-types.js';

/** The server's identity as every era sends it: only the fields that are set. */
export function serverInfoOf(options: Implementation): Implementation {
  return Object.fromEntries(
    Object.entries({
      name: options.name,
      version: options.version,
      title: options.title,
      description: options.description,
      websiteUrl: options.websiteUrl,
      icons: options.icons,
    }).filter(([, v]) => v !== undefined),
  ) as unknown as Implementation;
}
