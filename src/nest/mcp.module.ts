import { Inject, Logger, Module, type BeforeApplicationShutdown, type NestModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ApplicationConfig, DiscoveryModule, HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { OAuthResourceServer } from '../auth/oauth-resource-server.js';
import { publicBindWarning } from '../http/bind-address.js';
import { McpHttpDriver } from '../http/mcp-http.driver.js';
import { applyServerTimeouts } from '../http/server-timeouts.js';
import type { McpKernel } from '../server/mcp-kernel.js';
import { joinPath } from './join-path.js';
import { installExpressBodyLayer } from './mcp-body.layer.js';
import { McpHandlerFactory } from './mcp-handler.factory.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { installFastifyBodyHook } from './mcp-fastify-body.hook.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_ENDPOINT_PATH, MCP_KERNEL, MCP_RESOURCE_SERVER } from './mcp.constants.js';
import { mcpKernelProvider } from './mcp-kernel.provider.js';
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
    mcpKernelProvider,
    MCPServer,
    McpMetadataAccessor,
    McpHandlerFactory,
    McpExplorer,
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
  exports: [MCPServer],
})
export class McpModule extends McpConfigurableModule implements NestModule, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(MCP_KERNEL) private readonly kernel: McpKernel,
    private readonly driver: McpHttpDriver,
    private readonly adapterHost: HttpAdapterHost,
    private readonly appConfig: ApplicationConfig,
    @Inject(MCP_ENDPOINT_PATH) private readonly path: string,
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
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
    if (!adapter) return;
    this.warnOnPublicListen(adapter);
    const httpServer = adapter.getHttpServer?.() as Server | undefined;
    if (httpServer && this.options.serverTimeouts !== false) applyServerTimeouts(httpServer, this.options.serverTimeouts, true);
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

  /**
   * `app.listen` on a public address with only the loopback Host names allowed logs one warning that says
   * what to set; the app still starts (its other routes are not ours to stop). It wraps the adapter's
   * `listen`, the one call `app.listen` makes, so a server that tests or users listen on directly is not
   * affected.
   */
  private warnOnPublicListen(adapter: { listen: (port: string | number, ...args: never[]) => unknown }): void {
    const listen = adapter.listen.bind(adapter) as (port: string | number, ...args: unknown[]) => unknown;
    adapter.listen = (port: string | number, ...args: unknown[]) => {
      const isPipe = typeof port === 'string' && !/^\d+$/.test(port);
      const warning = isPipe ? null : publicBindWarning(typeof args[0] === 'string' ? args[0] : undefined, this.options);
      if (warning) new Logger(McpModule.name).warn(warning);
      return listen(port, ...args);
    };
  }

  private fullPath(): string {
    return joinPath(this.appConfig.getGlobalPrefix(), this.path);
  }
}
