import { Controller, Get, Inject, Next, NotFoundException, Req, Res, SetMetadata, type OnApplicationBootstrap, type Type } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthResourceServer } from '../auth/oauth-resource-server.js';
import { PROTECTED_RESOURCE_METADATA_PATH, wellKnownPathFor } from '../auth/protected-resource-metadata.js';
import { joinPath } from './join-path.js';
import { MCP_ENDPOINT_PATH, MCP_RESOURCE_SERVER } from './mcp.constants.js';

type FrameworkRequest = IncomingMessage & { originalUrl?: string; raw?: IncomingMessage };
type FrameworkResponse = ServerResponse & { raw?: ServerResponse };

/**
 * Builds the controller that serves one MCP server's Protected Resource Metadata (RFC 9728) at the root
 * well-known URL and at the path-inserted ones: for the endpoint as served (with Nest's global prefix) and for
 * the path of the configured resource URI. The route is a wildcard because the prefix and the resource URI are
 * known only once the app starts; a path that is not this server's falls through to the next route, so several
 * servers in one app each answer for their own path. Without `auth` it serves nothing.
 */
export function createProtectedResourceMetadataController(): Type<unknown> {
  @Controller(PROTECTED_RESOURCE_METADATA_PATH)
  class ProtectedResourceMetadataController implements OnApplicationBootstrap {
    private paths: ReadonlySet<string> = new Set();
    private body = '';

    constructor(
      @Inject(MCP_RESOURCE_SERVER) private readonly resourceServer: OAuthResourceServer | null,
      @Inject(MCP_ENDPOINT_PATH) private readonly endpointPath: string,
      private readonly appConfig: ApplicationConfig,
    ) {}

    onApplicationBootstrap(): void {
      if (!this.resourceServer) return;
      this.body = JSON.stringify(this.resourceServer.metadata);
      this.paths = new Set([
        PROTECTED_RESOURCE_METADATA_PATH,
        wellKnownPathFor(joinPath(this.appConfig.getGlobalPrefix(), this.endpointPath)),
        wellKnownPathFor(new URL(this.resourceServer.resource).pathname),
      ]);
    }

    @Get(['', '*path'])
    // Clients fetch the metadata before they hold a token. Global guards written the way Nest's docs show
    // ("enable authentication globally") skip routes marked `isPublic`, so this route stays reachable.
    @SetMetadata('isPublic', true)
    serve(@Req() req: FrameworkRequest, @Res() res: FrameworkResponse, @Next() next?: () => void): void {
      const path = (req.originalUrl ?? req.url ?? '').split('?')[0].replace(/(.)\/+$/, '$1');
      if (!this.paths.has(path)) {
        if (typeof next === 'function') return next();
        throw new NotFoundException();
      }
      const raw = res.raw ?? res;
      raw.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(this.body),
        'cache-control': 'public, max-age=3600',
        // Public metadata that browser-based clients fetch cross-origin before they hold any token.
        'access-control-allow-origin': '*',
      });
      raw.end(this.body);
    }
  }
  return ProtectedResourceMetadataController;
}
