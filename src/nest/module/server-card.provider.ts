import type { Provider } from '@nestjs/common';
import { isResourceServer } from '../../auth/tokens/auth-options.js';
import { HostOriginPolicy } from '../../http/policy/host-origin-policy.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { serverInfoOf } from '../../server/server-info.js';
import type { PublishedServerCard } from '../endpoint/server-card-routes.js';
import { MCP_SERVER_CARD } from '../mcp.constants.js';
import { CATALOG_WITHOUT_CARD } from '../mcp-messages.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';

/**
 * What the Server Card routes publish, read from the module's options once, so the routes depend on the card
 * and not on every option. Null when the card is not served: `http.serverCard` decides, else the card is public
 * only for a server without `auth`, whose name, version and endpoint a private server should not announce to
 * whoever asks. A catalog that would list a card the server does not serve stops start-up.
 */
export const serverCardProvider: Provider = {
  provide: MCP_SERVER_CARD,
  useFactory: (options: McpModuleOptions): PublishedServerCard | null => {
    const http = options.http ?? {};
    const asked = http.serverCard;
    const served = asked === undefined ? options.auth === undefined : asked !== false;
    if (http.catalog && !served) throw new McpConfigurationError(CATALOG_WITHOUT_CARD(options.name));
    if (!served) return null;
    const url =
      (typeof asked === 'object' ? asked.url : undefined) ??
      (isResourceServer(options.auth) ? options.auth.resource : undefined);
    return { info: serverInfoOf(options), url, catalog: http.catalog === true, hosts: new HostOriginPolicy(http) };
  },
  inject: [MCP_MODULE_OPTIONS],
};
