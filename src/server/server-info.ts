import type { Implementation } from '../protocol/mcp-types.js';

/** What the server options say of the server's identity: its name and version, and what `info` adds. */
export interface ServerIdentity {
  name: string;
  version: string;
  info?: Omit<Implementation, 'name' | 'version'>;
}

/** The server's identity as every era sends it: only the fields that are set. */
export function serverInfoOf(options: ServerIdentity): Implementation {
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
