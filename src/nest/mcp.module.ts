import {
  Inject,
  Logger,
  Module,
  type BeforeApplicationShutdown,
  type LoggerService,
  type NestModule,
  type OnApplicationBootstrap,
  type OnModuleInit,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ApplicationConfig, DiscoveryModule, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { Server } from 'node:http';
import { OAuthResourceServer } from '../auth/oauth-resource-server.js';
import { McpHttpDriver } from '../http/mcp-http-driver.js';
import { applyServerTimeouts } from '../http/server-timeouts.js';
import type { McpKernel } from '../server/mcp-kernel.js';
import { joinPath } from './join-path.js';
import { installExpressBodyLayer } from './mcp-body-layer.js';
import { McpHandlerFactory } from './mcp-handler.factory.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { installFastifyBodyHook } from './mcp-fastify-body-hook.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { McpConfigurationError } from './errors/mcp-configuration-error.js';
import {
  MCP_ENDPOINT_PATH,
  MCP_IS_DEFAULT,
  MCP_KERNEL,
  MCP_LOGGER,
  MCP_RESOURCE_SERVER,
  MCP_SERVER,
} from './mcp.constants.js';
import { DUPLICATE_DEFAULT_SERVER } from './mcp-messages.js';
import { mcpKernelProvider } from './mcp-kernel.provider.js';
import { McpConfigurableModule, MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { McpExplorer } from './mcp.explorer.js';
import { RouteToolsExplorer } from './routes/route-tools.explorer.js';
import { MCPServer } from './mcp.server.js';
import { warnOnPublicListen } from './public-listen-warning.js';
import { ProtectedResourceMetadataRoutes } from './protected-resource-metadata-routes.js';

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
    { provide: MCP_LOGGER, useValue: new Logger('MCPServer') },
    mcpKernelProvider,
    { provide: MCP_SERVER, useClass: MCPServer },
    McpMetadataAccessor,
    McpHandlerFactory,
    McpExplorer,
    RouteToolsExplorer,
    ProtectedResourceMetadataRoutes,
    {
      provide: MCP_RESOURCE_SERVER,
      useFactory: async (options: McpModuleOptions) => {
        if (!options.auth) return null;
        const resourceServer = new OAuthResourceServer(options.auth);
        await resourceServer.ready();
        return resourceServer;
      },
      inject: [MCP_MODULE_OPTIONS],
    },
    {
      provide: McpHttpDriver,
      useFactory: (kernel: McpKernel, options: McpModuleOptions, resourceServer: OAuthResourceServer | null) =>
        new McpHttpDriver(kernel, { ...options, authenticator: resourceServer ?? undefined }),
      inject: [MCP_KERNEL, MCP_MODULE_OPTIONS, MCP_RESOURCE_SERVER],
    },
  ],
})
export class McpModule
  extends McpConfigurableModule
  implements NestModule, OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  constructor(
    @Inject(MCP_KERNEL) private readonly kernel: McpKernel,
    private readonly driver: McpHttpDriver,
    private readonly adapterHost: HttpAdapterHost,
    private readonly appConfig: ApplicationConfig,
    @Inject(MCP_ENDPOINT_PATH) private readonly path: string,
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    @Inject(MCP_IS_DEFAULT) private readonly isDefault: boolean,
    private readonly moduleRef: ModuleRef,
    @Inject(MCP_LOGGER) private readonly logger: LoggerService,
  ) {
    super();
  }

  /** Two default servers would make `MCPServer` mean a different server depending on where it is asked for. */
  onModuleInit(): void {
    if (!this.isDefault) return;
    const defaults = this.moduleRef.get(MCPServer, { strict: false, each: true });
    if (defaults.length > 1) throw new McpConfigurationError(DUPLICATE_DEFAULT_SERVER(defaults.length));
  }

  /**
   * Runs in the middleware phase, just before Nest registers routes: Fastify fixes route options then, and no
   * later lifecycle hook comes before route registration (pinned by test/unit/adapter-assumptions.spec.ts).
   */
  configure(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter || adapter.getType() !== 'fastify') return;
    installFastifyBodyHook(adapter.getInstance(), this.fullPath(), this.driver);
  }

  onApplicationBootstrap(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) return;
    warnOnPublicListen(adapter, this.options, this.logger);
    const httpServer = adapter.getHttpServer?.() as Server | undefined;
    if (httpServer && this.options.serverTimeouts !== false)
      applyServerTimeouts(httpServer, this.options.serverTimeouts, true);
    if (adapter.getType() !== 'express') return;
    installExpressBodyLayer(adapter.getInstance(), this.fullPath(), this.driver);
  }

  /** Before Nest closes the HTTP server (which waits for open streams): refuse new requests, drain, abort. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.driver.close();
  }

  onApplicationShutdown(): void {
    this.kernel.close();
  }

  private fullPath(): string {
    return joinPath(this.appConfig.getGlobalPrefix(), this.path);
  }
}
