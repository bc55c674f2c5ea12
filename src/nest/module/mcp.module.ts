import { loadPluginMetadata } from '../../plugin/metadata/load-plugin-metadata.js';
import {
  Inject,
  Logger,
  Module,
  VERSION_NEUTRAL,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type LoggerService,
  type MiddlewareConsumer,
  type NestModule,
  type OnApplicationBootstrap,
  type OnModuleInit,
  type OnApplicationShutdown,
  type Type,
} from '@nestjs/common';
import { VERSION_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, DiscoveryModule, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { Server } from 'node:http';
import { isResourceServer } from '../../auth/tokens/auth-options.js';
import type { OAuthResourceServer } from '../../auth/oauth-resource-server.js';
import { McpHttpDriver } from '../../http/mcp-http-driver.js';
import { applyServerTimeouts } from '../../http/policy/server-timeouts.js';
import type { McpKernel } from '../../server/kernel/mcp-kernel.js';
import { appGuardCaller } from '../pipeline/app-guard-caller.js';
import { endpointPaths } from '../endpoint/endpoint-paths.js';
import { McpHandlerFactory } from '../pipeline/mcp-handler.factory.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { frontLayerFor } from '../../http/front/front-layer.js';
import type { McpModuleAsyncOptions, McpModuleOptions } from './mcp-module-options.interface.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import {
  MCP_CONTROLLER,
  MCP_ENDPOINT_PATH,
  MCP_IS_DEFAULT,
  MCP_KERNEL,
  MCP_LOGGER,
  MCP_PLAYGROUND_CONTROLLER,
  MCP_RESOURCE_SERVER,
  MCP_SERVER,
  MCP_UPSTREAMS,
} from '../mcp.constants.js';
import { createUpstreamGateway } from '../upstreams/create-upstream-gateway.js';
import type { UpstreamGateway } from '../../server/upstreams/upstream-gateway.js';
import { DUPLICATE_DEFAULT_SERVER, HTTP_OPTION_BESIDE_FACTORY, UNRESOLVED_UI } from '../mcp-messages.js';
import { mcpKernelProvider } from './mcp-kernel.provider.js';
import { McpConfigurableModule, MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { McpExplorer } from './mcp.explorer.js';
import { RouteToolsExplorer } from './route-tools.explorer.js';
import { routeTargetGuardProvider } from './route-target-guard.provider.js';
import { MCPServer } from '../mcp.server.js';
import { warnOnPublicListen } from './public-listen-warning.js';
import { announcePlayground } from '../playground/playground-announcement.js';
import { ProtectedResourceMetadataRoutes } from '../endpoint/protected-resource-metadata-routes.js';
import { ServerCardRoutes } from '../endpoint/server-card-routes.js';
import { serverCardProvider } from './server-card.provider.js';

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
    routeTargetGuardProvider,
    ProtectedResourceMetadataRoutes,
    serverCardProvider,
    ServerCardRoutes,
    {
      provide: MCP_UPSTREAMS,
      useFactory: createUpstreamGateway,
      inject: [MCP_MODULE_OPTIONS, MCP_KERNEL, ModuleRef, MCP_LOGGER],
    },
    {
      provide: MCP_RESOURCE_SERVER,
      useFactory: async (options: McpModuleOptions) => {
        if (!isResourceServer(options.auth)) return null;
        // Loaded only with `auth` set: its verifiers (JWT, introspection) are modules a server without auth skips.
        const { OAuthResourceServer } = await import('../../auth/oauth-resource-server.js');
        const resourceServer = new OAuthResourceServer(options.auth);
        await resourceServer.ready();
        return resourceServer;
      },
      inject: [MCP_MODULE_OPTIONS],
    },
    {
      provide: McpHttpDriver,
      useFactory: (kernel: McpKernel, options: McpModuleOptions, resourceServer: OAuthResourceServer | null) =>
        new McpHttpDriver(kernel, { ...options.http, authenticator: resourceServer ?? appGuardCaller }),
      inject: [MCP_KERNEL, MCP_MODULE_OPTIONS, MCP_RESOURCE_SERVER],
    },
  ],
})
export class McpModule
  extends McpConfigurableModule
  implements NestModule, OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private hooked = false;

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
    @Inject(MCP_CONTROLLER) private readonly controller: Type<unknown>,
    @Inject(MCP_PLAYGROUND_CONTROLLER) private readonly playground: Type<unknown> | null,
    @Inject(MCP_UPSTREAMS) private readonly upstreams: UpstreamGateway | null,
  ) {
    super();
  }

  /**
   * Loads the `metadata.ts` that `nestjs-mcp/plugin` has the Nest CLI generate for SWC builds (which compile
   * without the type checker the plugin reads): `await McpModule.loadPluginMetadata(metadata)` before
   * `NestFactory.create`. A tsc build needs no call.
   */
  static loadPluginMetadata(metadata: () => Promise<Record<string, unknown>>): Promise<void> {
    return loadPluginMetadata(metadata);
  }

  /**
   * The options from a factory, settled at start-up. What shapes the module itself (`path`, `isGlobal`,
   * `isDefault`, `playground`, `http.routeDecorators`) is read before that and goes beside `useFactory`: the
   * factory's type refuses it. Beside the factory `http` holds only `routeDecorators`: anything else there would
   * never be read.
   */
  static override forRootAsync(options: McpModuleAsyncOptions): DynamicModule {
    for (const key of Object.keys(options.http ?? {})) {
      if (key !== 'routeDecorators') throw new McpConfigurationError(HTTP_OPTION_BESIDE_FACTORY(key));
    }
    return super.forRootAsync(options);
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
  configure(consumer: MiddlewareConsumer): void {
    this.markRoute();
    const adapter = this.adapterHost?.httpAdapter;
    const front = frontLayerFor(adapter?.getType(), this.driver);
    // Route middleware is the last step before the app's guards (Express: the hidden body's headers go back).
    if (front?.routeMiddleware) consumer.apply(front.routeMiddleware).forRoutes(this.controller);
    // `bootstrapStdio` runs configure() a second time to find the middleware bound to the endpoint.
    if (adapter?.getType() !== 'fastify' || this.hooked) return;
    this.hooked = true;
    for (const path of this.fullPaths()) front!.install(adapter.getInstance(), path);
  }

  async onApplicationBootstrap(): Promise<void> {
    // After every module's onModuleInit, where run-time registrations are made: a mounted name that clashes
    // with one fails start-up, and every tool's UI (a mounted one's too) must resolve.
    await this.upstreams?.start();
    const unresolved = this.kernel.checkUiLinks();
    if (unresolved.length > 0) throw new McpConfigurationError(UNRESOLVED_UI(this.options.name, unresolved));
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) return;
    const http = this.options.http ?? {};
    warnOnPublicListen(adapter, http, this.logger);
    const httpServer = adapter.getHttpServer?.() as Server | undefined;
    if (this.playground)
      announcePlayground(
        httpServer,
        this.fullPaths().map((path) => `${path}/playground`),
        this.logger,
      );
    // Server-wide, so every route of the app would see them: only on request (the MCP route bounds its own body).
    if (httpServer && http.serverTimeouts)
      applyServerTimeouts(httpServer, http.serverTimeouts === true ? {} : http.serverTimeouts, true);
    // Express's layer goes in front of the parsers Nest installs at init: only now are they in its router.
    if (adapter.getType() !== 'express') return;
    const front = frontLayerFor('express', this.driver)!;
    for (const path of this.fullPaths()) front.install(adapter.getInstance(), path);
  }

  /** Before Nest closes the HTTP server (which waits for open streams): refuse new requests, drain, abort. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.driver.close();
    await this.upstreams?.close();
  }

  onApplicationShutdown(): void {
    this.kernel.close();
  }

  /**
   * The route's version, set on its controller (and the playground's) before Nest registers routes (it is read
   * then; a factory's options are known by now). Version-neutral by default: an app's `defaultVersion` would
   * otherwise move the endpoint (and make Nest report it under a version it does not care about). The route
   * decorators are on the controllers from the start (`decorateRoute`).
   */
  private markRoute(): void {
    // The playground sits beside the endpoint: under the same version.
    for (const controller of this.playground ? [this.controller, this.playground] : [this.controller]) {
      Reflect.defineMetadata(VERSION_METADATA, this.options.http?.version ?? VERSION_NEUTRAL, controller);
    }
  }

  /** Where Nest serves the endpoint: under the global prefix, and under each URI version it answers. */
  private fullPaths(): string[] {
    return endpointPaths(this.appConfig, this.path, this.options.http?.version);
  }
}
