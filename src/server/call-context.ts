import type { HeaderBag } from '../protocol/header-codec.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { Caller } from './access/caller-identity.js';
import { describeCall, type McpCall } from './mcp-call.js';
import type { McpRequestContext } from './mcp-request-context.js';

/**
 * The context a method handler gets: the transport's, with the call's own signal, the interceptors' view of
 * the call (where an unexpected error is reported) and the caller identity. Both travel with the call, and the signal is a getter on
 * the prototype. An object literal with a per-call getter closure gets a new hidden class per call, reachable
 * from the shared one through a transition the young-generation collector keeps alive; a table keyed by
 * request (a WeakMap) is kept alive the same way. Either held every request's objects until a full collection:
 * under load all of them were promoted (docs/performance.md).
 */
export class CallContext implements McpRequestContext {
  // Declared, and assigned in the constructor, rather than class fields or parameter properties: a field is
  // defined before the constructor runs (so one it assigns is written twice), and a definition costs the
  // interpreter more than an assignment. One context is made per call.
  declare readonly headers: HeaderBag | undefined;
  declare readonly notify: McpRequestContext['notify'];
  declare readonly closeStream: McpRequestContext['closeStream'];
  declare readonly openStream: McpRequestContext['openStream'];
  declare readonly httpRequest: unknown;
  declare readonly principal: unknown;
  declare readonly scopes: readonly string[] | undefined;
  declare readonly credentialExpiresAt: number | undefined;
  declare private readonly signalOf: () => AbortSignal;
  declare private described: McpCall | undefined;
  declare private readonly request: JsonRpcRequest;
  declare readonly caller: Caller;

  constructor(
    context: McpRequestContext,
    signalOf: () => AbortSignal,
    call: McpCall | undefined,
    caller: Caller,
    request: JsonRpcRequest,
  ) {
    this.signalOf = signalOf;
    this.described = call;
    this.request = request;
    this.caller = caller;
    this.headers = context.headers;
    this.notify = context.notify;
    this.closeStream = context.closeStream;
    this.openStream = context.openStream;
    this.httpRequest = context.httpRequest;
    this.principal = context.principal;
    this.scopes = context.scopes;
    this.credentialExpiresAt = context.credentialExpiresAt;
  }

  get signal(): AbortSignal {
    return this.signalOf();
  }

  /**
   * The interceptors' view of the call, where an unexpected error is reported: described when first asked for
   * when no interceptor ran (most calls succeed, and nothing then reads it).
   */
  get call(): McpCall {
    return (this.described ??= describeCall(this.request, this.httpRequest));
  }
}
