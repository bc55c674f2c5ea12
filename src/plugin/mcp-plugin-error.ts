import type { TypeRefusal } from './type-schema.js';

/** Fails the build: a decorated method whose types the plugin cannot turn into a schema, named with the type. */
export class McpPluginError extends Error {
  static refused(place: string, refusal: TypeRefusal): McpPluginError {
    const where = refusal.path.length > 0 ? `argument "${pathText(refusal.path)}"` : 'its arguments';
    return new McpPluginError(
      `nestjs-mcp/plugin: ${place}: ${where} has type "${refusal.typeText}", which JSON Schema cannot express ` +
        `(${refusal.reason}). Change the type, or give the decorator an explicit schema.`,
    );
  }
}

function pathText(path: readonly string[]): string {
  return path.map((segment, index) => (index === 0 || segment.startsWith('[') ? segment : `.${segment}`)).join('');
}
