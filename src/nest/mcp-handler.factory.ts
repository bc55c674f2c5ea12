import { HttpException, Inject, Injectable, type LoggerService, type ParamData } from '@nestjs/common';
import {
  CUSTOM_ROUTE_ARGS_METADATA,
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
} from '@nestjs/common/constants.js';
import { ApplicationConfig, ContextIdFactory, ExternalContextCreator, ModuleRef, type ContextId } from '@nestjs/core';
import { Injector } from '@nestjs/core/injector/injector.js';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { CallToolResult } from '../protocol/mcp-types.js';
import type { McpContext } from '../server/mcp-context.js';
import type { McpArgumentsHost } from './mcp-arguments-host.js';
import type { McpContextType } from './mcp-execution-context.js';
import { MCP_PARAM_ARGS_METADATA } from './mcp-metadata.constants.js';
import { McpParamsFactory } from './mcp-params.factory.js';
import { McpSignalFilter } from './mcp-signal.filter.js';
import { MCP_LOGGER } from './mcp.constants.js';
import { VISIBILITY_GUARD_FAILED } from './mcp-messages.js';
import { providerPrototype } from './provider-prototype.js';
import { httpErrorText } from './http-error-text.js';

/**
 * Runs one decorated method for one call, given the call's arguments host. `T` is what the registry expects the
 * method to return; TypeScript cannot see a decorated method's return type here, and the kernel checks the
 * value at run time (a resource without contents, a prompt without messages is an error result).
 */
export type McpMethodHandler<T = unknown> = (host: McpArgumentsHost) => Promise<T>;

type Instance = Record<string, (...args: unknown[]) => unknown>;

interface ParamMetadata {
  index: number;
  data?: string;
  pipes?: unknown[];
}

const MCP_CONTEXT: McpContextType = 'mcp';
const ALL_ENHANCERS = { guards: true, interceptors: true, filters: true };
const GUARDS_ONLY = { guards: true, interceptors: false, filters: false };
const SIGNAL_FILTER = new McpSignalFilter();

/**
 * Turns a decorated provider method into a handler, once, at start-up. A singleton method with no guard,
 * interceptor, pipe or filter in reach is called directly (the fast path); otherwise the call goes through
 * Nest's pipeline, built by `ExternalContextCreator` as `@nestjs/graphql` does for resolvers. A request-scoped
 * provider (or one depending on a request-scoped provider) is resolved per call under a fresh context id,
 * with the HTTP request registered as `REQUEST`.
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();
  private readonly injector = new Injector();

  constructor(
    private readonly externalContextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
    private readonly applicationConfig: ApplicationConfig,
    @Inject(MCP_LOGGER) private readonly logger: LoggerService,
  ) {}

  create<T = unknown>(wrapper: InstanceWrapper, methodName: string): McpMethodHandler<T> {
    return this.createHandler(wrapper, methodName) as McpMethodHandler<T>;
  }

  /**
   * A tool's handler: as `create`, and an `HttpException` (a guard's, a pipe's) becomes a tool error result the
   * model can read. Only tools have those; a prompt's or resource's exception is a JSON-RPC error.
   */
  createTool(wrapper: InstanceWrapper, methodName: string): McpMethodHandler<unknown> {
    const handler = this.createHandler(wrapper, methodName);
    return async (host) => {
      try {
        return await handler(host);
      } catch (error) {
        if (error instanceof HttpException) return httpExceptionResult(error);
        throw error;
      }
    };
  }

  /** Whether any guard reaches the method: class, method or global. */
  hasGuards(wrapper: InstanceWrapper, methodName: string): boolean {
    const prototype = providerPrototype(wrapper) as Instance;
    return (
      declares(GUARDS_METADATA, prototype[methodName], prototype.constructor) ||
      this.applicationConfig.getGlobalGuards().length + this.applicationConfig.getGlobalRequestGuards().length > 0
    );
  }

  /**
   * Runs only the method's guards against a `tools/list` request. The guards see a handler carrying the method's
   * metadata (so `Reflector` lookups work) and the list request's host: no arguments. A guard that denies (returns
   * false, or throws an `HttpException` as Nest's guards do) hides the tool. A guard that fails otherwise (its
   * database is down) hides it too, since showing a tool nobody could vouch for is worse, but is logged with
   * its error: an outage must not look like an empty tool list.
   */
  createGuardCheck(
    wrapper: InstanceWrapper,
    methodName: string,
    tool: string,
  ): (context: McpContext) => Promise<boolean> {
    const probe = withMetadataOf((providerPrototype(wrapper) as Instance)[methodName], () => true);
    const check = (instance: Instance, contextId?: ContextId) =>
      this.externalContextCreator.create(
        instance,
        probe,
        methodName,
        undefined,
        undefined,
        contextId,
        wrapper.id,
        GUARDS_ONLY,
        MCP_CONTEXT,
      );
    const staticCheck = wrapper.isDependencyTreeStatic() ? check(wrapper.instance as Instance) : undefined;
    return async (context) => {
      const host: McpArgumentsHost = [context.httpRequest, context, context.inputResponses, undefined, undefined];
      try {
        if (staticCheck) return (await staticCheck(...host)) === true;
        const { instance, contextId } = await this.resolvePerCall(wrapper, context.httpRequest);
        return (await check(instance, contextId)(...host)) === true;
      } catch (error) {
        if (!(error instanceof HttpException))
          this.logger.error(VISIBILITY_GUARD_FAILED(tool), error instanceof Error ? error.stack : String(error));
        return false;
      }
    };
  }

  private createHandler(wrapper: InstanceWrapper, methodName: string): McpMethodHandler {
    if (!wrapper.isDependencyTreeStatic()) {
      const callback = pipelineCallback((providerPrototype(wrapper) as Instance)[methodName]);
      return async (host) => {
        const { instance, contextId } = await this.resolvePerCall(wrapper, host[0]);
        return this.pipeline(instance, callback, methodName, contextId, wrapper.id)(...host);
      };
    }
    const instance = wrapper.instance as Instance;
    if (this.hasEnhancers(instance, methodName)) {
      const pipeline = this.pipeline(
        instance,
        pipelineCallback(instance[methodName]),
        methodName,
        undefined,
        wrapper.id,
      );
      return (host) => pipeline(...host);
    }
    return this.direct(instance, methodName);
  }

  private pipeline(
    instance: Instance,
    callback: (...args: unknown[]) => unknown,
    methodName: string,
    contextId: ContextId | undefined,
    inquirerId: string,
  ) {
    return this.externalContextCreator.create(
      instance,
      callback,
      methodName,
      MCP_PARAM_ARGS_METADATA,
      this.paramsFactory,
      contextId,
      inquirerId,
      ALL_ENHANCERS,
      MCP_CONTEXT,
    );
  }

  /** The fast path: the parameters are picked from the host by a table built once. */
  private direct(instance: Instance, methodName: string): McpMethodHandler {
    const method = instance[methodName];
    const params = paramsOf(instance, methodName).map(({ index, type, data }) => ({
      index,
      pick: (host: McpArgumentsHost) => this.paramsFactory.exchangeKeyForValue(type, data as ParamData, host),
    }));
    const length = params.reduce((max, p) => Math.max(max, p.index + 1), 0);
    return async (host) => {
      const args = new Array<unknown>(length);
      for (const { index, pick } of params) args[index] = pick(host);
      return method.apply(instance, args);
    };
  }

  private async resolvePerCall(
    wrapper: InstanceWrapper,
    httpRequest: unknown,
  ): Promise<{ instance: Instance; contextId: ContextId }> {
    // A context id per HTTP request (one call per POST), which also honours a ContextIdStrategy (durable providers).
    const contextId = ContextIdFactory.getByRequest(httpRequest as Record<string, unknown>);
    this.moduleRef.registerRequestByContextId(httpRequest, contextId);
    // Within the provider's own module, as @nestjs/graphql does: resolving the token app-wide could find a
    // provider of the same class registered by another module.
    const host = wrapper.host!;
    const instance = await this.injector.loadPerContext(
      wrapper.instance as Instance,
      host,
      host.providers,
      contextId,
      wrapper,
    );
    return { instance, contextId };
  }

  private hasEnhancers(instance: Instance, methodName: string): boolean {
    const method = instance[methodName];
    const declared = [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA].some((key) =>
      declares(key, method, instance.constructor),
    );
    const config = this.applicationConfig;
    const globals =
      config.getGlobalGuards().length +
      config.getGlobalInterceptors().length +
      config.getGlobalPipes().length +
      config.getGlobalFilters().length +
      config.getGlobalRequestGuards().length +
      config.getGlobalRequestInterceptors().length +
      config.getGlobalRequestPipes().length +
      config.getGlobalRequestFilters().length;
    return declared || globals > 0 || paramsOf(instance, methodName).some((p) => p.custom || p.pipes.length > 0);
  }
}

/**
 * What the pipeline calls in place of the method: the method itself, carrying the method's metadata (so guards
 * and interceptors reading it through `context.getHandler()` see it) plus `McpSignalFilter` as its innermost
 * exception filter.
 */
function pipelineCallback(method: Function): (...args: unknown[]) => unknown {
  const callback = withMetadataOf(method, function (this: unknown, ...args: unknown[]) {
    return method.apply(this, args);
  });
  const filters: unknown[] = Reflect.getMetadata(EXCEPTION_FILTERS_METADATA, method) ?? [];
  Reflect.defineMetadata(EXCEPTION_FILTERS_METADATA, [...filters, SIGNAL_FILTER], callback);
  return callback;
}

/** Copies every metadata entry of `source` onto `target`, so `Reflector` lookups on either agree. */
function withMetadataOf<T extends Function>(source: Function, target: T): T {
  for (const key of Reflect.getMetadataKeys(source))
    Reflect.defineMetadata(key, Reflect.getMetadata(key, source), target);
  return target;
}

function declares(key: string, method: object, classRef: object): boolean {
  const onMethod: unknown[] | undefined = Reflect.getMetadata(key, method);
  const onClass: unknown[] | undefined = Reflect.getMetadata(key, classRef);
  return (onMethod?.length ?? 0) + (onClass?.length ?? 0) > 0;
}

function paramsOf(
  instance: Instance,
  methodName: string,
): Array<{ index: number; type: number; data?: string; pipes: unknown[]; custom: boolean }> {
  const metadata: Record<string, ParamMetadata> =
    Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, instance.constructor, methodName) ?? {};
  return Object.entries(metadata).map(([key, p]) => ({
    index: p.index,
    type: Number(key.split(':')[0]),
    data: p.data,
    pipes: p.pipes ?? [],
    custom: key.includes(CUSTOM_ROUTE_ARGS_METADATA),
  }));
}

/** An `HttpException` (a guard's ForbiddenException, a pipe's BadRequestException) is a tool error result. */
function httpExceptionResult(error: HttpException): CallToolResult {
  const text = httpErrorText(error.getResponse(), error.message);
  return { isError: true, content: [{ type: 'text', text: `Error: ${text}` }] };
}
