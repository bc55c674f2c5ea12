import type { Implementation } from '../protocol/mcp-types.js';

/** The server's identity as every era sends it: only the fields that are set. */
export function serverInfoOf(options: {
  name: string;
  version: string;
  info?: Omit<Implementation, 'name' | 'version'>;
}): Implementation {
  const info = options.info ?? {};
  return Object.fromEntries(
    Object.entries({
      name: options.name,
      version: options.version,
      title: info.title,
      description: info.description,
      websiteUrl: info.websiteUrl,
      icons: info.icons,
    }).filter(([, v]) => v !== undefined),
  ) as unknown as Implementation;
}
