/** Options of `nestjs-mcp/plugin` (`{ "name": "nestjs-mcp/plugin", "options": { ... } }` in nest-cli.json). */
export interface McpPluginOptions {
  /**
   * For the SWC builder's metadata file: the folder it is written to, which the CLI passes (the `sourceRoot`).
   * The generated `import()`s are relative to it.
   */
  pathToSource?: string;
}
