import { HttpException, HttpStatus, Inject, Injectable, type LoggerService, type ParamData } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
} from '@nestjs/common/constants.js';
import { ApplicationConfig, ContextIdFactory, ExternalContextCreator, ModuleRef, type ContextId } from '@nestjs/core';
import { Injector } from '@nestjs/core/injector/injector.js';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { McpError } from '../../protocol/mcp-error.js';
import { InputRequired } from '../../server/input-required.js';
import type { McpContext } from '../../server/mcp-context.js';
import { guardHostOf, type McpArgumentsHost } from './mcp-arguments-host.js';
import { McpCapturedResponse } from './mcp-captured-response.js';
import { McpParamtype } from './mcp-paramtype.enum.js';
import { stdioRequest } from './stdio-request.js';
import { isThenable } from '../../server/util/when-ready.js';
import type { McpContextType } from './mcp-execution-context.js';
import { MCP_PARAM_ARGS_METADATA, MCP_VISIBILITY_PROBE_METADATA } from '../mcp-metadata.constants.js';
import { McpParamsFactory, paramsOf } from './mcp-params.factory.js';
import { McpSignalFilter } from './mcp-signal.filter.js';
import { MCP_LOGGER } from '../mcp.constants.js';
import { VISIBILITY_GUARD_FAILED } from '../mcp-messages.js';
import { providerPrototype } from '../provider-prototype.js';
import { httpErrorText } from '../http-error-text.js';
import { withoutGlobalGuardsAndInterceptors } from './without-global-enhancers.js';
import { McpThrottlerGuard } from './mcp-throttler.guard.js';

/**
 * Runs one decorated method for one call, given the call's arguments host. `T` is what the registry expects the
 * method to return; TypeScript cannot see a decorated method's return type here, and the kernel checks the
 * value at run time (a resource without contents, a prompt without messages is an error result). A synchronous
 * method on the fast path answers synchronously, as a `registerTool` handler does: the kernel then spends no
 * promise, microtask or deadline entry on the call.
 */
export type McpMethodHandler<T = unknown> = (host: McpArgumentsHost) => T | Promise<T>;

type Instance = Record<string, (...args: unknown[]) => unknown>;

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
 *
 * Which enhancers a method gets: its class's and its own (guards, interceptors, pipes, filters), and the global
 * pipes and filters. Global guards and interceptors are not among them: they run at the HTTP route, once for
 * the request that carries the call, as for any route of the app, and would otherwise run twice per call (a
 * throttler counting each call twice, a logging interceptor writing two lines). A global `McpThrottlerGuard`
 * is the exception: it lets the MCP route through and counts each call here, per tool, as it counts routes.
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();
  private readonly injector = new Injector();
  private readonly contextCreator: ExternalContextCreator;

  constructor(
    externalContextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
    private readonly applicationConfig: ApplicationConfig,
    @Inject(MCP_LOGGER) private readonly logger: LoggerService,
  ) {
    this.contextCreator = withoutGlobalGuardsAndInterceptors(externalContextCreator, applicationConfig, countsCalls);
  }

  /**
   * A tool's handler, built once: the method called directly or through Nest's pipeline; an `HttpException` (a guard's, a pipe's), or what an exception filter
   * wrote for an exception, becomes a tool error result the model can read.
   */
  createTool(wrapper: InstanceWrapper, methodName: string): McpMethodHandler<unknown> {
    return settledBy(this.createHandler(wrapper, methodName), toolRefusal);
  }

  /**
   * A tool's handler taking the arguments alone, for a method on the fast path whose one parameter is `@Args()`
   * (most tools'); undefined for any other. It answers as `createTool`'s, without an arguments host to build.
   */
  createToolOnArgs(wrapper: InstanceWrapper, methodName: string): ((args: unknown) => unknown) | undefined {
    const instance = wrapper.instance as Instance;
    if (!wrapper.isDependencyTreeStatic() || this.hasEnhancers(instance, methodName)) return undefined;
    const [param, ...more] = paramsOf(instance, methodName);
    if (more.length > 0 || param?.index !== 0 || param.type !== McpParamtype.ARGS || param.data != null) return;
    const method = instance[methodName];
    // `settledBy` spelled out: one call per tool call rather than three.
    return (args) => {
      let value: unknown;
      try {
        value = method.call(instance, args);
      } catch (error) {
        return toolRefusal(error);
      }
      return isThenable(value) ? Promise.resolve(value).then(undefined, toolRefusal) : value;
    };
  }

  /**
   * A resource's or prompt's handler, built as a tool's; an `HttpException` (or a filter's answer to an exception)
   * becomes the protocol error that fits it: a 404 from a resource is "Resource not found", any other 4xx is
   * invalid params, a 5xx an internal error with the exception's message. All of these are expected outcomes,
   * logged as a refused call, not as a crash.
   */
  createReader<T>(wrapper: InstanceWrapper, methodName: string, kind: 'resource' | 'prompt'): McpMethodHandler<T> {
    return settledBy(this.createHandler(wrapper, methodName) as McpMethodHandler<T>, (error, host) => {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      const uri = host[McpParamtype.URI];
      if (refusal.status === HttpStatus.NOT_FOUND && kind === 'resource' && uri !== undefined)
        throw McpError.resourceNotFound(uri);
      if (refusal.status >= 400 && refusal.status < 500) throw McpError.invalidParams(`Error: ${refusal.message}`);
      throw new McpError(ErrorCode.InternalError, `Error: ${refusal.message}`);
    });
  }

  /** Whether any guard reaches the method: its class's or its own. */
  hasGuards(wrapper: InstanceWrapper, methodName: string): boolean {
    const prototype = providerPrototype(wrapper) as Instance;
    return declares(GUARDS_METADATA, prototype[methodName], prototype.constructor);
  }

  /**
   * Runs only the method's guards against a request that lists or names the primitive (`what`: `tool "name"`).
   * The guards see a handler carrying the method's metadata (so `Reflector` lookups work) and the request's
   * host: no arguments. A guard that denies (returns false, or throws an `HttpException` as Nest's guards do)
   * hides the primitive. A guard that fails otherwise (its database is down) hides it too, since showing a
   * primitive nobody could vouch for is worse, but is logged with its error: an outage must not look like an
   * empty list.
   */
  createGuardCheck(
    wrapper: InstanceWrapper,
    methodName: string,
    what: string,
  ): (context: McpContext) => Promise<boolean> {
    const probe = withMetadataOf((providerPrototype(wrapper) as Instance)[methodName], () => true);
    Reflect.defineMetadata(MCP_VISIBILITY_PROBE_METADATA, true, probe);
    const check = (instance: Instance, contextId?: ContextId) =>
      this.contextCreator.create(
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
      const host = guardHostOf(context);
      try {
        if (staticCheck) return (await staticCheck(...host)) === true;
        const { instance, contextId } = await this.resolvePerCall(wrapper, host[0]);
        return (await check(instance, contextId)(...host)) === true;
      } catch (error) {
        if (!(error instanceof HttpException))
          this.logger.error(VISIBILITY_GUARD_FAILED(what), error instanceof Error ? error.stack : String(error));
        return false;
      }
    };
  }

  private createHandler(wrapper: InstanceWrapper, methodName: string): McpMethodHandler {
    if (!wrapper.isDependencyTreeStatic()) {
      const callback = pipelineCallback((providerPrototype(wrapper) as Instance)[methodName]);
      return async (host) => {
        const piped = pipelineHost(host);
        const { instance, contextId } = await this.resolvePerCall(wrapper, piped[0]);
        return answered(piped, this.pipeline(instance, callback, methodName, contextId, wrapper.id));
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
      return (host) => answered(pipelineHost(host), pipeline);
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
    return this.contextCreator.create(
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
    const factory = this.paramsFactory;
    const params = paramsOf(instance, methodName);
    const indexes = params.map((p) => p.index);
    const types = params.map((p) => p.type);
    const data = params.map((p) => p.data as ParamData);
    // Most methods take one parameter (`@Args()`): called with it, without an argument array.
    if (params.length === 1 && indexes[0] === 0)
      return (host) => method.call(instance, factory.exchangeKeyForValue(types[0], data[0], host));
    const length = indexes.reduce((max, index) => Math.max(max, index + 1), 0);
    return (host) => {
      const args = new Array<unknown>(length);
      // Indexed, not for-of: the iterator protocol costs the interpreter an object per call.
      for (let i = 0; i < indexes.length; i++) args[indexes[i]] = factory.exchangeKeyForValue(types[i], data[i], host);
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
      config.getGlobalGuards().filter(countsCalls).length +
      config.getGlobalPipes().length +
      config.getGlobalFilters().length +
      config.getGlobalRequestPipes().length +
      config.getGlobalRequestFilters().length;
    return declared || globals > 0 || paramsOf(instance, methodName).some((p) => p.custom || p.pipes.length > 0);
  }
}

/** What a tool's handler answers for an expected refusal (an `HttpException`, a filter's answer); anything else is thrown. */
function toolRefusal(error: unknown): { isError: true; content: Array<{ type: 'text'; text: string }> } {
  const refusal = refusalOf(error);
  if (refusal) return { isError: true, content: [{ type: 'text', text: `Error: ${refusal.message}` }] };
  throw error;
}

/** A global guard that runs on each call rather than on the request that carries it. */
function countsCalls(guard: unknown): boolean {
  return guard instanceof McpThrottlerGuard;
}

/**
 * `handler` with its failures, thrown or rejected, handed to `failed`: synchronous when the handler is, so a
 * synchronous method costs no promise.
 */
function settledBy<T, R>(
  handler: McpMethodHandler<T>,
  failed: (error: unknown, host: McpArgumentsHost) => R,
): McpMethodHandler<T | R> {
  return (host) => {
    let value: T | Promise<T>;
    try {
      value = handler(host);
    } catch (error) {
      return failed(error, host);
    }
    return isThenable(value) ? Promise.resolve(value).then(undefined, (error) => failed(error, host)) : value;
  };
}

/**
 * The host the pipeline runs with: a response that records what a filter writes, and over stdio (no HTTP
 * request) a stand-in request, so enhancers written for HTTP find the objects they read.
 */
function pipelineHost(host: McpArgumentsHost): McpArgumentsHost {
  const context = host[McpParamtype.CONTEXT];
  return [host[0] ?? stdioRequest(context), new McpCapturedResponse(), context, host[3], host[4], host[5]];
}

/**
 * Runs the pipeline, then reads what an exception filter wrote: Nest rethrows the exception when the filter
 * returns nothing, and a filter may also return the response it wrote to. Either way the written answer is
 * thrown as a `FilterAnswer`, which each kind of handler turns into its own error.
 */
async function answered(
  host: McpArgumentsHost,
  pipeline: (...args: McpArgumentsHost) => Promise<unknown>,
): Promise<unknown> {
  const response = host[McpParamtype.HTTP_RESPONSE]!;
  let value: unknown;
  try {
    value = await pipeline(...host);
  } catch (error) {
    if (response.sent && !(error instanceof McpError || error instanceof InputRequired))
      throw new FilterAnswer(response, error);
    throw error;
  }
  if (response.sent) throw new FilterAnswer(response, undefined);
  return value;
}

/**
 * What the pipeline calls in place of the method: the method itself, carrying the method's name and metadata
 * (so guards and interceptors keyed by `context.getHandler()`, such as the throttler's counters, `Reflector`
 * lookups, cache keys, see the tool's own method) plus `McpSignalFilter` as its innermost exception filter.
 */
function pipelineCallback(method: Function): (...args: unknown[]) => unknown {
  const callback = withMetadataOf(method, function (this: unknown, ...args: unknown[]) {
    return method.apply(this, args);
  });
  Object.defineProperty(callback, 'name', { value: method.name });
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

/** An exception filter's answer to an exception (undefined when the pipeline ended normally but a filter wrote). */
class FilterAnswer {
  constructor(
    readonly response: McpCapturedResponse,
    readonly exception: unknown,
  ) {}
}

/**
 * An expected refusal, with its HTTP status and the text the client reads: an `HttpException` (a guard's
 * ForbiddenException, a pipe's BadRequestException) or a filter's answer. A filter's body without a message
 * (the docs' catch-all writes only a status, a timestamp and a path) leaves the exception's own message; a
 * filter's answer to an unexpected error without a message stays unexpected (undefined), so the kernel's
 * redaction and error log apply to it as to any bug.
 */
function refusalOf(error: unknown): { status: number; message: string } | undefined {
  if (error instanceof HttpException) return { status: error.getStatus(), message: httpExceptionMessage(error) };
  if (!(error instanceof FilterAnswer)) return undefined;
  const { response, exception } = error;
  const written = response.message();
  if (written !== undefined) return { status: response.statusCode, message: written };
  if (exception instanceof HttpException)
    return { status: response.statusCode, message: httpExceptionMessage(exception) };
  if (exception === undefined)
    return { status: response.statusCode, message: JSON.stringify(response.body) ?? 'Error' };
  throw exception;
}

function httpExceptionMessage(error: HttpException): string {
  return httpErrorText(error.getResponse(), error.message);
}
