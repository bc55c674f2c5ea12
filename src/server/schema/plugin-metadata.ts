import type { JsonSchema, PromptArgument } from '../../protocol/mcp-types.js';

/**
 * The static method `nestjs-mcp/plugin` adds to a class with MCP methods (or `McpModule.loadPluginMetadata`
 * assigns, for SWC builds): it returns what the plugin derived from each method's types and comments, by name.
 */
export const MCP_PLUGIN_METADATA_FACTORY = '_MCP_METADATA_FACTORY';

/** What the plugin derived for one decorated method; the decorator's own options win over each key. */
export interface PluginMethodMetadata {
  kind: 'tool' | 'prompt' | 'resourceTemplate' | 'routeTool';
  description?: string;
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  arguments?: PromptArgument[];
  /**
   * A route tool's: the JSDoc of the values its route reads (a DTO's properties, a single key's `@param` tag), by
   * where the route reads them and their key there. Its arguments' schemas are the route's, built at start-up.
   */
  argumentDescriptions?: RouteArgumentDescriptions;
}

/** Descriptions of a route's values by where it reads them (`@Param`, `@Query`, `@Body`) and their key. */
export type RouteArgumentDescriptions = Partial<Record<'path' | 'query' | 'body', Record<string, string>>>;

export type PluginClassMetadata = Record<string, PluginMethodMetadata>;

/** The plugin's metadata of a class's method, if it was built with the plugin. */
export function pluginMetadataOf(classRef: Function, methodName: string): PluginMethodMetadata | undefined {
  const factory = (classRef as unknown as Record<string, unknown>)[MCP_PLUGIN_METADATA_FACTORY];
  // An inherited factory is the parent's, which describes the methods the subclass inherits.
  return typeof factory === 'function' ? (factory as () => PluginClassMetadata)()[methodName] : undefined;
}
