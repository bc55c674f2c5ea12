import type { Provider } from '@nestjs/common';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { PLAYGROUND_IN_PRODUCTION } from '../../server/errors/configuration-messages.js';
import { PlaygroundPage } from './playground-page.js';
import { playgroundAllowedInProduction, type McpPlaygroundOption } from './playground-options.interface.js';

/** The playground's page, read at start-up; a start-up failure in production unless the option forces it. */
export function playgroundPageProvider(option: McpPlaygroundOption | undefined): Provider {
  return {
    provide: PlaygroundPage,
    useFactory: () => {
      if (process.env.NODE_ENV === 'production' && !playgroundAllowedInProduction(option))
        throw new McpConfigurationError(PLAYGROUND_IN_PRODUCTION);
      return new PlaygroundPage();
    },
  };
}
