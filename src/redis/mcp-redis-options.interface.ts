/** Options that shape the module itself. */
export interface McpRedisModuleExtras {
  /** Register the module globally, so `McpModule.forRootAsync` can inject `McpRedisBackends`. Default true. */
  isGlobal: boolean;
}
