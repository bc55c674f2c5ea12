/**
 * Start-up cannot go on: an option, a registration or the app's wiring cannot work. The message names the place
 * and the fix. Every layer throws this one class (or a subclass), so an app catches one thing at bootstrap.
 */
export class McpConfigurationError extends Error {
  override readonly name: string = 'McpConfigurationError';
}
