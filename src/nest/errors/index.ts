export { McpConfigurationError } from '../../server/errors/configuration-error.js';
export { McpRegistrationError } from './mcp-registration-error.js';
