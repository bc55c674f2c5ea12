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
}

export type PluginClassMetadata = Record<string, PluginMethodMetadata>;

/** The plugin's metadata of a class's method, if it was built with the plugin. */
export function pluginMetadataOf(classRef: Function, methodName: string): PluginMethodMetadata | undefined {
  const factory = (classRef as unknown as Record<string, unknown>)[MCP_PLUGIN_METADATA_FACTORY];
  // An inherited factory is the parent's, which describes the methods the subclass inherits.
  return typeof factory === 'function' ? (factory as () => PluginClassMetadata)()[methodName] : undefined;
}
