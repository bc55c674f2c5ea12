import { Inject, Injectable, RequestMethod, VersioningType, type Type } from '@nestjs/common';
import {
  METHOD_METADATA,
  MODULE_PATH,
  PATH_METADATA,
  SSE_METADATA,
  VERSION_METADATA,
} from '@nestjs/common/constants.js';
import { ApplicationConfig, DiscoveryService, HttpAdapterHost, MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { VersionValue } from '@nestjs/common/internal';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { RoutePathFactory } from '@nestjs/core/router/route-path-factory.js';
import type { Server } from 'node:http';
import { sendInProcess } from '../../http/in-process-request.js';
import type { JsonSchema, ToolAnnotations } from '../../protocol/mcp-types.js';
import type { McpToolRegistration } from '../../server/registry/tool-registration.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';
import { ROUTE_CONTROLLER_NOT_FOUND, ROUTE_TOOL_UNSUPPORTED, ROUTE_TOOLS_NEED_HTTP } from '../mcp-messages.js';
import { MCP_ROUTE_TOOL_METADATA } from '../mcp-metadata.constants.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { getRequiredScopes } from '../decorators/require-scopes.decorator.js';
import { pluginMetadataOf } from '../../plugin/metadata/plugin-metadata.js';
import { currentStdioRequest } from '../pipeline/stdio-request.js';
import { dtoSchema, routeArguments } from '../routes/route-arguments.js';
import { routeRequest, routeResult, type RouteRequestPlan, type RouteTarget } from '../routes/route-tool-call.js';
import type { RouteToolOptions } from '../decorators/route-tool-options.interface.js';
import { API_EXCLUDE_ENDPOINT, apiOperationOf, apiResponseTypeOf } from '../routes/swagger-metadata.js';

/** A route tool ready to register, and where it was declared (`OrdersController.findOne`). */
export interface RouteToolDeclaration {
  name: string;
  place: string;
  registration: McpToolRegistration<JsonSchema>;
}

/** Always forwarded: the caller's credentials, which the route's own guards read. */
const IDENTITY_HEADERS = ['authorization', 'cookie'];
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** What the HTTP method says of a route, as MCP tool annotations. */
const METHOD_ANNOTATIONS: Partial<Record<string, ToolAnnotations>> = {
  GET: { readOnlyHint: true },
  HEAD: { readOnlyHint: true },
  POST: { readOnlyHint: false, destructiveHint: false },
  PUT: { readOnlyHint: false, idempotentHint: true },
  PATCH: { readOnlyHint: false },
  DELETE: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

/**
 * Finds the controller routes served as tools (`@RouteTool` on a route of a controller in reach of `include`,
 * and every route of the controllers of the `routes.controllers` option) and builds, once at start-up, each
 * one's schema and request plan. A call sends the route's request in process to the app's own HTTP server, so
 * everything that runs for an HTTP client runs for it.
 */
@Injectable()
export class RouteToolsExplorer {
  private server: Promise<Server> | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly adapterHost: HttpAdapterHost,
    private readonly applicationConfig: ApplicationConfig,
    private readonly modules: ModulesContainer,
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
  ) {}

  *explore(): Generator<RouteToolDeclaration> {
    const listed = new Set<Function>(this.options.routes?.controllers ?? []);
    const include = this.options.include;
    const inReach = new Set(this.discovery.getControllers(include ? { include } : undefined));
    const found = new Set<Function>();
    const pathFactory = new RoutePathFactory(this.applicationConfig);
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller) continue;
      const all = listed.has(controller);
      if (all) found.add(controller);
      if (!all && !inReach.has(wrapper)) continue;
      const prototype = controller.prototype as Record<string, Function>;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = prototype[methodName];
        const options = Reflect.getMetadata(MCP_ROUTE_TOOL_METADATA, method) as RouteToolOptions | undefined;
        if (!options && (!all || excludedFromDocs(method))) continue;
        const place = `${controller.name}.${methodName}`;
        const unsupported = unsupportedRoute(method);
        if (unsupported) {
          // Listing a controller exposes what can be a tool; an explicit @RouteTool on what cannot is a mistake.
          if (options) throw new McpConfigurationError(ROUTE_TOOL_UNSUPPORTED(place, unsupported));
          continue;
        }
        yield this.declare(wrapper, controller, methodName, options ?? {}, place, pathFactory);
      }
    }
    for (const controller of listed)
      if (!found.has(controller)) throw new McpConfigurationError(ROUTE_CONTROLLER_NOT_FOUND(controller.name));
  }

  private declare(
    wrapper: InstanceWrapper,
    controller: Type<unknown>,
    methodName: string,
    options: RouteToolOptions,
    place: string,
    pathFactory: RoutePathFactory,
  ): RouteToolDeclaration {
    if (!this.adapterHost.httpAdapter) throw new McpConfigurationError(ROUTE_TOOLS_NEED_HTTP(place));
    const method = (controller.prototype as Record<string, Function>)[methodName];
    const requestMethod = Reflect.getMetadata(METHOD_METADATA, method) as RequestMethod;
    const verb = RequestMethod[requestMethod];
    const version = this.versionOf(controller, method);
    const path = pathFactory.create(
      {
        ctrlPath: first(Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined),
        methodPath: first(Reflect.getMetadata(PATH_METADATA, method) as string | string[] | undefined),
        globalPrefix: this.applicationConfig.getGlobalPrefix(),
        modulePath: this.modulePathOf(wrapper),
        controllerVersion: Reflect.getMetadata(VERSION_METADATA, controller) as VersionValue | undefined,
        methodVersion: Reflect.getMetadata(VERSION_METADATA, method) as VersionValue | undefined,
        versioningOptions: this.applicationConfig.getVersioning(),
      },
      requestMethod,
    )[0];
    const { rename, name, description, annotations, outputSchema, ...rest } = options;
    const operation = apiOperationOf(method);
    const derived = pluginMetadataOf(controller, methodName);
    const routeArgs = routeArguments(controller, methodName, path, place, rename, derived?.argumentDescriptions);
    const plan: RouteRequestPlan = {
      method: verb,
      path,
      arguments: routeArgs,
      forwardHeaders: [
        ...new Set([...IDENTITY_HEADERS, ...(this.options.routes?.forwardHeaders ?? []).map((h) => h.toLowerCase())]),
      ],
      fixedHeaders: this.versionHeaders(version),
      maxResponseBytes:
        this.options.routes?.maxResponseBytes ?? this.options.http?.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    };
    const responseType = outputSchema === undefined ? apiResponseTypeOf(method, controller) : undefined;
    const toolName =
      name ?? operation?.operationId ?? snakeCase(`${controller.name.replace(/Controller$/, '')}_${methodName}`);
    return {
      name: toolName,
      place,
      registration: {
        ...rest,
        name: toolName,
        description:
          description ??
          ([operation?.summary, operation?.description].filter(Boolean).join('\n\n') ||
            derived?.description ||
            `${verb} ${path}`),
        inputSchema: routeArgs.inputSchema,
        outputSchema: outputSchema ?? (responseType ? dtoSchema(responseType) : derived?.outputSchema),
        annotations: { ...METHOD_ANNOTATIONS[verb], ...annotations },
        requiredScopes: getRequiredScopes(method, controller),
        validateArguments: false,
        handler: async (args, _inputResponses, ctx) => {
          const target: RouteTarget = { controller, handler: method, reached: false, strayed: false };
          // Over stdio, the stand-in request carries the headers the stdio server was told to send.
          const outer = ctx.httpRequest ?? currentStdioRequest.getStore();
          const request = routeRequest(plan, args as Record<string, unknown>, outer, ctx.signal, target);
          return routeResult(
            await sendInProcess(await this.httpServer(), request),
            plan.maxResponseBytes,
            plan,
            target,
          );
        },
      },
    };
  }

  /**
   * The app's HTTP server, on the first call: it exists once the app is created, listening or not (stdio).
   * Fastify routes nothing before its plugins are loaded, which `listen` would otherwise have waited for.
   */
  private httpServer(): Promise<Server> {
    return (this.server ??= (async () => {
      const adapter = this.adapterHost.httpAdapter;
      if (adapter.getType() === 'fastify') await (adapter.getInstance() as { ready(): Promise<unknown> }).ready();
      return adapter.getHttpServer() as Server;
    })());
  }

  /** The `RouterModule` path of the controller's module, as Nest's router reads it. */
  private modulePathOf(wrapper: InstanceWrapper): string | undefined {
    const metatype = wrapper.host?.metatype;
    if (!metatype) return undefined;
    return (Reflect.getMetadata(MODULE_PATH + this.modules.applicationId, metatype) ??
      Reflect.getMetadata(MODULE_PATH, metatype)) as string | undefined;
  }

  private versionOf(controller: Function, method: Function): string | undefined {
    const value = (Reflect.getMetadata(VERSION_METADATA, method) ??
      Reflect.getMetadata(VERSION_METADATA, controller) ??
      this.applicationConfig.getVersioning()?.defaultVersion) as VersionValue | undefined;
    const version = Array.isArray(value) ? value[0] : value;
    return typeof version === 'string' ? version : undefined;
  }

  /** Header and media-type versioning select a version by header; URI versioning is in the path already. */
  private versionHeaders(version: string | undefined): Record<string, string> {
    const versioning = this.applicationConfig.getVersioning();
    if (!versioning || version === undefined) return {};
    if (versioning.type === VersioningType.HEADER) return { [versioning.header.toLowerCase()]: version };
    if (versioning.type === VersioningType.MEDIA_TYPE)
      return { accept: `application/json;${versioning.key}${version}` };
    return {};
  }
}

/** Why a handler cannot be a tool, or undefined when it can. */
function unsupportedRoute(method: Function): string | undefined {
  const requestMethod = Reflect.getMetadata(METHOD_METADATA, method) as RequestMethod | undefined;
  if (requestMethod === undefined || Reflect.getMetadata(PATH_METADATA, method) === undefined)
    return 'it is not a route handler (no @Get, @Post, ...)';
  if (Reflect.getMetadata(SSE_METADATA, method)) return 'an @Sse route streams, and a tool call has one answer';
  if (!METHOD_ANNOTATIONS[RequestMethod[requestMethod]])
    return `@${RequestMethod[requestMethod]} routes are not served (GET, HEAD, POST, PUT, PATCH and DELETE are)`;
  const path = [Reflect.getMetadata(PATH_METADATA, method)].flat().join(',');
  if (/[*{]/.test(path)) return `its path "${path}" has a wildcard or optional part, which a tool argument cannot fill`;
  return undefined;
}

/** `@ApiExcludeEndpoint()`: a route the API's own documentation hides is not listed by `routes.controllers` either. */
function excludedFromDocs(method: Function): boolean {
  return (Reflect.getMetadata(API_EXCLUDE_ENDPOINT, method) as { disable?: boolean } | undefined)?.disable === true;
}

function first(path: string | string[] | undefined): string | undefined {
  return Array.isArray(path) ? path[0] : path;
}

/** `Orders_findOne` is `orders_find_one`; `getHTTPStatus` is `get_http_status`. */
function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .toLowerCase();
}
