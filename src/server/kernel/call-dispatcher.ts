import { randomUUID } from 'node:crypto';
import { classifyMessage } from '../../protocol/classifier.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { HeaderBag } from '../../protocol/header-codec.js';
import { errorResponse, successResponse, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import { CallContext } from '../call-context.js';
import { DeadlineExceeded, type CallGuard } from '../access/call-guard.js';
import type { Caller } from '../access/caller-identity.js';
import type { McpEra } from '../eras/era.js';
import type { HandlerErrorLogger } from '../failures/handler-error-policy.js';
import {
  chainInterceptors,
  describeByHeaders,
  describeCall,
  SEES_FAILURES_ONLY,
  type FailureObserver,
  type McpCall,
  type McpCallInterceptor,
  type McpCallObserver,
  type PassingInterceptor,
  PASSES_THROUGH,
} from '../mcp-call.js';
import type { McpRequestContext } from '../mcp-request-context.js';
import type { MethodHandler, MethodResult } from '../method-result.js';
import { toolError } from '../methods/tools.js';
import { isThenable } from '../util/when-ready.js';

/**
 * The kernel's dispatcher: a request through the method table (built once), the call guard and deadline, the
 * interceptors and observers the application added, and every failure mapped to its JSON-RPC answer. The same
 * for every era: the era only presents the answer.
 */
export class CallDispatcher {
  private interceptor?: McpCallInterceptor;
  /**
   * Whether every interceptor added would pass a call straight through now: their `PASSES_THROUGH` checks, as
   * one function (a call then asks one function, not a list); undefined once one has none.
   */
  private passes: (() => boolean) | undefined;
  private observer?: McpCallObserver;
  /** Whether an observer added may read a successful call (one not marked `SEES_FAILURES_ONLY`). */
  private observesSuccess = false;

  constructor(
    private readonly methods: ReadonlyMap<string, MethodHandler>,
    private readonly calls: CallGuard,
    private readonly callerOf: (context: McpRequestContext) => Caller,
    private readonly interceptorLog: HandlerErrorLogger,
  ) {}

  /** One request through the method table, the call guard, the interceptors and the observers. */
  dispatch(request: JsonRpcRequest, context: McpRequestContext, era: McpEra): Promise<JsonRpcResponse> {
    const answer = this.dispatchNow(request, context, era);
    return isThenable(answer) ? answer : Promise.resolve(answer);
  }

  /**
   * `dispatch`, answered synchronously when the call is answered synchronously and no interceptor runs (none was
   * added, or each says it would pass the call straight through now): a transport then writes the answer with no
   * promise or microtask in between.
   */
  dispatchNow(
    request: JsonRpcRequest,
    context: McpRequestContext,
    era: McpEra,
  ): JsonRpcResponse | Promise<JsonRpcResponse> {
    const handler = era.removed(request.method) ? undefined : this.methods.get(request.method);
    if (!handler) return errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const intercepting = this.interceptor !== undefined && (this.passes === undefined || !this.passes());
    // The one place a dispatched call is wrapped (logging, tracing, metrics); without interceptors, no cost. An
    // observer of failures only gets it described once the call has failed.
    const call = intercepting || this.observesSuccess ? describeCall(request, context.httpRequest) : undefined;
    // No principal, nobody to tell apart (a context the kernel made has the same principal as its request).
    const caller = context.principal === undefined || context.principal === null ? undefined : this.callerOf(context);
    if (!call || !intercepting) return this.run(request, context, era, handler, call, caller);
    let answer: Promise<JsonRpcResponse> | undefined;
    // One promise per call, settled from the handler's own answer: no async wrapper adds microtasks to a sync call.
    const respond = (): Promise<JsonRpcResponse> => {
      const answered = this.run(request, context, era, handler, call, caller);
      return (answer = isThenable(answered) ? answered : Promise.resolve(answered));
    };
    // Interceptors are application code (loggers, tracers, metrics): one that throws must not turn the answer
    // into a rejected promise, which a transport can only send as a bare 500. The log gets the exception.
    try {
      const intercepted = this.interceptor!(call, respond);
      // Interceptors that passed the answer through hand back `respond`'s own promise, which never rejects:
      // guarding it would cost every call a promise and a microtask.
      if (intercepted === answer) return intercepted;
      return Promise.resolve(intercepted).then(undefined, (error: unknown) =>
        this.interceptorFailedResponse(error, call, request),
      );
    } catch (error) {
      return this.interceptorFailedResponse(error, call, request);
    }
  }

  /**
   * The handler under the call guard, its answer presented by the era and shown to the observers: synchronous when
   * the handler is. Listen and event streams are long-lived by design and have their own caps; every other call
   * is bounded.
   */
  private run(
    request: JsonRpcRequest,
    context: McpRequestContext,
    era: McpEra,
    handler: MethodHandler,
    call: McpCall | undefined,
    caller: Caller,
  ): JsonRpcResponse | Promise<JsonRpcResponse> {
    let running: MethodResult | Promise<MethodResult>;
    // The handler's context, which describes the call if the handler fails (its error is reported there).
    let made: CallContext | undefined;
    try {
      running =
        request.method === 'subscriptions/listen' || request.method === 'events/stream'
          ? handler(request, context, caller)
          : this.calls.run((made = new CallContext(context, call, caller, request)), context, handler, request);
    } catch (error) {
      return this.failed(request, context, era, call ?? made?.call, error);
    }
    // Spelled out rather than `isThenable`: this is every call's path.
    if (typeof (running as { then?: unknown } | null)?.then !== 'function')
      return this.answered(request, context, era, call ?? made, running as MethodResult);
    return Promise.resolve(running).then(
      (result) => this.answered(request, context, era, call ?? made, result),
      (error: unknown) => this.failed(request, context, era, call ?? made?.call, error),
    );
  }

  private answered(
    request: JsonRpcRequest,
    context: McpRequestContext,
    era: McpEra,
    call: McpCall | CallContext | undefined,
    result: MethodResult,
  ): JsonRpcResponse {
    let response: JsonRpcResponse;
    try {
      response = successResponse(request.id, era.present(result));
    } catch (error) {
      return this.failed(request, context, era, call instanceof CallContext ? call.call : call, error);
    }
    // `isFailedResponse`, spelled out: this is every call's path.
    if (!this.observer || (!this.observesSuccess && !('error' in response) && response.result.isError !== true))
      return response;
    const seen = call instanceof CallContext ? call.call : (call ?? describeCall(request, context.httpRequest));
    return this.observed(seen, response);
  }

  /** A failed call's answer, shown to the observers (an unexpected error is kept on the call for them). */
  private failed(
    request: JsonRpcRequest,
    context: McpRequestContext,
    era: McpEra,
    call: McpCall | undefined,
    error: unknown,
  ): JsonRpcResponse {
    const seen = call ?? (this.observer ? describeCall(request, context.httpRequest) : undefined);
    return this.observed(seen, this.failure(request, era, seen, error));
  }

  /** A failure of a dispatched call as its JSON-RPC answer; an unexpected one is kept on the call for the log. */
  private failure(request: JsonRpcRequest, era: McpEra, call: McpCall | undefined, error: unknown): JsonRpcResponse {
    if (error instanceof DeadlineExceeded && request.method === 'tools/call') {
      return successResponse(request.id, era.present(toolError(`Error: ${error.message}`)));
    }
    if (error instanceof McpError) return errorResponse(request.id, error.code, error.message, error.data);
    if (call) call.error = error;
    return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
  }

  /** The response after the observers; one that throws is application code failing: logged, and -32603. */
  private observed(call: McpCall | undefined, response: JsonRpcResponse): JsonRpcResponse {
    if (!call || !this.observer) return response;
    try {
      return this.observer(call, response);
    } catch (error) {
      this.interceptorFailed(error, call);
      return errorResponse(response.id, ErrorCode.InternalError, 'Internal error');
    }
  }

  private interceptorFailedResponse(error: unknown, call: McpCall, request: JsonRpcRequest): JsonRpcResponse {
    this.interceptorFailed(error, call);
    return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
  }

  /** A request the transport refused before dispatch, as the interceptors and observers see it. */
  async observeRefusal(
    message: unknown,
    response: JsonRpcResponse,
    httpRequest?: unknown,
    headers?: HeaderBag,
  ): Promise<JsonRpcResponse> {
    if (!this.interceptor && !this.observer) return response;
    let call: McpCall | undefined;
    if (message === undefined && headers) call = describeByHeaders(headers, httpRequest);
    else {
      const verdict = classifyMessage(message);
      if (verdict.kind === 'request') call = describeCall(verdict.request, httpRequest);
    }
    if (!call) return response;
    const observed = this.observed(call, response);
    if (!this.interceptor) return observed;
    try {
      return await this.interceptor(call, async () => observed);
    } catch (error) {
      this.interceptorFailed(error, call);
      return observed;
    }
  }

  /** Adds an interceptor around every dispatched call; each one added wraps those added before it. */
  intercept(interceptor: McpCallInterceptor): void {
    const check = (interceptor as PassingInterceptor)[PASSES_THROUGH];
    const before = this.passes;
    this.passes = !check || !this.interceptor ? check : before && (() => before() && check());
    this.interceptor = chainInterceptors(this.interceptor, interceptor);
  }

  /**
   * Adds an observer of every call's response (and of refusals, as interceptors see them), run inside all
   * interceptors; each one added gets what those added before it returned.
   */
  observe(observer: McpCallObserver): void {
    if (!(observer as FailureObserver)[SEES_FAILURES_ONLY]) this.observesSuccess = true;
    const inner = this.observer;
    this.observer = inner ? (call, response) => observer(call, inner(call, response)) : observer;
  }

  private interceptorFailed(error: unknown, call: McpCall): void {
    this.interceptorLog(error, {
      correlationId: randomUUID(),
      method: call.method,
      name: call.name ?? call.uri,
      requestId: call.requestId,
    });
  }
}
