/** The module's configuration cannot work (two default servers, the same primitive declared twice, ...). */
export class McpConfigurationError extends Error {
  override readonly name: string = 'McpConfigurationError';
}
