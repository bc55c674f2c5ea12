import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { OAuthResourceServer } from '../../auth/oauth-resource-server.js';
import { PROTECTED_RESOURCE_METADATA_PATH, wellKnownPathFor } from '../../auth/protected-resource-metadata.js';
import { joinPath } from '../join-path.js';
import { MCP_ENDPOINT_PATH, MCP_RESOURCE_SERVER } from '../mcp.constants.js';
import { type PublicReply, sendPublicDocument } from './public-document.js';

// Paths already served per HTTP framework instance: Fastify refuses a route registered twice, and two servers
// whose resource is the same origin would both claim the root URL (the first one answers it).
const servedPaths = new WeakMap<object, Set<string>>();

/**
 * Serves one MCP server's Protected Resource Metadata (RFC 9728) at the well-known URL of its resource URI
 * (path-inserted, RFC 9728 §3.1) and at the path-inserted URL of the endpoint as served (with Nest's global
 * prefix). The root URL `/.well-known/oauth-protected-resource` belongs to a resource without a path only: a
 * document found there must name the origin as its `resource` (RFC 9728 §3.3), so a client would reject one
 * that names `https://host/mcp`, whichever of several servers it came from. The routes go straight onto the HTTP framework: well-known URLs live at the host root whatever
 * the API prefix, clients fetch them before they hold a token (so no guard may stand in front), and exact paths
 * work the same on Express and Fastify. Registered in `onModuleInit`, before Nest adds its not-found handler.
 * Without `auth` it serves nothing.
 */
@Injectable()
export class ProtectedResourceMetadataRoutes implements OnModuleInit {
  constructor(
    @Inject(MCP_RESOURCE_SERVER) private readonly resourceServer: OAuthResourceServer | null,
    @Inject(MCP_ENDPOINT_PATH) private readonly endpointPath: string,
    private readonly appConfig: ApplicationConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!this.resourceServer || !adapter) return;
    const body = JSON.stringify(this.resourceServer.metadata);
    const serve = (_req: unknown, res: PublicReply) => sendPublicDocument(res, 'application/json', body);
    const instance = adapter.getInstance() as object;
    const served = servedPaths.get(instance) ?? new Set<string>();
    servedPaths.set(instance, served);
    const paths = [
      wellKnownPathFor(new URL(this.resourceServer.resource).pathname),
      wellKnownPathFor(joinPath(this.appConfig.getGlobalPrefix(), this.endpointPath)),
    ].filter(
      (path) => path !== PROTECTED_RESOURCE_METADATA_PATH || new URL(this.resourceServer!.resource).pathname === '/',
    );
    for (const path of new Set(paths)) {
      if (served.has(path)) continue;
      served.add(path);
      adapter.get(path, serve);
    }
  }
}
