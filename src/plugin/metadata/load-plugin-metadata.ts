import { MCP_PLUGIN_METADATA_FACTORY, type PluginClassMetadata } from './plugin-metadata.js';

/** What the Nest CLI's generator writes for `nestjs-mcp/plugin` into `metadata.ts` of an SWC build. */
type GeneratedMetadata = Record<
  string,
  { mcp?: Array<[Promise<Record<string, unknown>>, Record<string, PluginClassMetadata>]> }
>;

/**
 * Gives each class the plugin described in an SWC build's `metadata.ts` the factory a tsc build compiles into
 * it. Every key of the file is read, since it is the plugin's name as nest-cli.json spells it.
 */
export async function loadPluginMetadata(metadata: () => Promise<Record<string, unknown>>): Promise<void> {
  const generated = (await metadata()) as GeneratedMetadata;
  const files = Object.values(generated).flatMap((entry) => entry?.mcp ?? []);
  await Promise.all(
    files.map(async ([fileImport, classes]) => {
      const exports = await fileImport;
      for (const [name, methods] of Object.entries(classes)) {
        const classRef = exports[name];
        if (typeof classRef !== 'function') continue;
        Object.defineProperty(classRef, MCP_PLUGIN_METADATA_FACTORY, { value: () => methods, configurable: true });
      }
    }),
  );
}
