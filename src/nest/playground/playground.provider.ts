import type { LoggerService, Provider } from '@nestjs/common';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { PLAYGROUND_IN_PRODUCTION } from '../mcp-messages.js';
import { MCP_LOGGER } from '../mcp.constants.js';
import { readPlaygroundPage } from './playground-assets.cjs';
import { PlaygroundPage } from './playground-page.js';
import { playgroundAllowedInProduction, type McpPlaygroundOption } from './playground-options.interface.js';

/**
 * The playground's page, read at start-up: a start-up failure in production unless the option forces it, and a
 * warning when the page was never built.
 */
export function playgroundPageProvider(option: McpPlaygroundOption | undefined): Provider {
  return {
    provide: PlaygroundPage,
    useFactory: (logger: LoggerService) => {
      if (process.env.NODE_ENV === 'production' && !playgroundAllowedInProduction(option))
        throw new McpConfigurationError(PLAYGROUND_IN_PRODUCTION);
      const page = new PlaygroundPage(readPlaygroundPage());
      if (page.missing) logger.warn(page.missing);
      return page;
    },
    inject: [MCP_LOGGER],
  };
}
