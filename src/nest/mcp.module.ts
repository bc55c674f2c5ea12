import { Inject, Module, type NestModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ApplicationConfig, DiscoveryModule, HttpAdapterHost } from '@nestjs/core';
import { OAuthResourceServer } from '../auth/oauth-resource-server.js';
import { McpHttpDriver } from '../http/mcp-http.driver.js';
import { joinPath } from './join-path.js';
import { installExpressBodyLayer } from './mcp-body.layer.js';
import { McpHandlerFactory } from './mcp-handler.factory.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { installFastifyBodyHook } from './mcp-fastify-body.hook.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_ENDPOINT_PATH, MCP_RESOURCE_SERVER } from './mcp.constants.js';
import { McpConfigurableModule, MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { McpExplorer } from './mcp.explorer.js';
import { MCPServer } from './mcp.server.js';
import { ProtectedResourceMetadataRoutes } from './protected-resource-metadata.routes.js';

/**
 * Turns a Nest app into a stateless MCP server (protocol revision 2026-07-28).
 *
 * ```ts
 * @Module({ imports: [McpModule.forRoot({ name: 'weather', version: '1.0.0' })] })
 * export class AppModule {}
 * ```
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    MCPServer,
    McpMetadataAccessor,
    McpHandlerFactory,
    McpExplorer,
    ProtectedResourceMetadataRoutes,
    {
      provide: MCP_RESOURCE_SERVER,
      useFactory: (options: McpModuleOptions) => (options.auth ? new OAuthResourceServer(options.auth) : null),
      inject: [MCP_MODULE_OPTIONS],
    },
    {
      provide: McpHttpDriver,
      useFactory: (server: MCPServer, options: McpModuleOptions, resourceServer: OAuthResourceServer | null) =>
        new McpHttpDriver(server, { ...options, authenticator: resourceServer ?? undefined }),
      inject: [MCPServer, MCP_MODULE_OPTIONS, MCP_RESOURCE_SERVER],
    },
  ],
  exports: [MCPServer],
})
export class McpModule extends McpConfigurableModule implements NestModule, OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly server: MCPServer,
    private readonly driver: McpHttpDriver,
    private readonly adapterHost: HttpAdapterHost,
    private readonly appConfig: ApplicationConfig,
    @Inject(MCP_ENDPOINT_PATH) private readonly path: string,
  ) {
    super();
  }

  /** Runs in the middleware phase, just before Nest registers routes: Fastify fixes route options then. */
  configure(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter || adapter.getType() !== 'fastify') return;
    installFastifyBodyHook(adapter.getInstance(), this.fullPath(), this.driver);
  }

  onApplicationBootstrap(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter || adapter.getType() !== 'express') return;
    installExpressBodyLayer(adapter.getInstance(), this.fullPath(), this.driver);
  }

  onApplicationShutdown(): void {
    this.server.close();
  }

  private fullPath(): string {
    return joinPath(this.appConfig.getGlobalPrefix(), this.path);
  }
}
