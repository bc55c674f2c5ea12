export { McpConfigurationError } from './mcp-configuration-error.js';
export { McpRegistrationError } from './mcp-registration-error.js';
