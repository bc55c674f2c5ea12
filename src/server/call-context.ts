import type { HeaderBag } from '../protocol/header-codec.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { GuardedCall } from './access/call-guard.js';
import type { Caller } from './access/caller-identity.js';
import { describeCall, type McpCall } from './mcp-call.js';
import type { McpRequestContext } from './mcp-request-context.js';

/**
 * The context a method handler gets: the transport's, with the call's own signal, the interceptors' view of
 * the call (where an unexpected error is reported) and the caller identity. It is also the call's record under
 * the call guard (`GuardedCall`, whose signal is a getter on the prototype), so a call makes one object. An
 * object literal with a per-call getter closure gets a new hidden class per call, reachable from the shared one
 * through a transition the young-generation collector keeps alive; a table keyed by request (a WeakMap) is kept
 * alive the same way. Either held every request's objects until a full collection: under load all of them were
 * promoted (docs/performance.md).
 */
export class CallContext extends GuardedCall implements McpRequestContext {
  // Declared, and assigned in the constructor, rather than class fields or parameter properties: a field is
  // defined before the constructor runs (so one it assigns is written twice), and a definition costs the
  // interpreter more than an assignment. One context is made per call: what every call reads of the transport's
  // is copied, the rest read through when asked.
  declare readonly headers: HeaderBag | undefined;
  declare readonly httpRequest: unknown;
  declare readonly principal: unknown;
  declare readonly caller: Caller;
  declare private readonly transport: McpRequestContext;
  declare private described: McpCall | undefined;
  declare private readonly request: JsonRpcRequest;

  constructor(transport: McpRequestContext, call: McpCall | undefined, caller: Caller, request: JsonRpcRequest) {
    super();
    this.transport = transport;
    this.described = call;
    this.request = request;
    this.caller = caller;
    this.headers = transport.headers;
    this.httpRequest = transport.httpRequest;
    this.principal = transport.principal;
  }

  get notify(): McpRequestContext['notify'] {
    return this.transport.notify;
  }

  get closeStream(): McpRequestContext['closeStream'] {
    return this.transport.closeStream;
  }

  get openStream(): McpRequestContext['openStream'] {
    return this.transport.openStream;
  }

  get scopes(): readonly string[] | undefined {
    return this.transport.scopes;
  }

  get credentialExpiresAt(): number | undefined {
    return this.transport.credentialExpiresAt;
  }

  /**
   * The interceptors' view of the call, where an unexpected error is reported: described when first asked for
   * when no interceptor ran (most calls succeed, and nothing then reads it).
   */
  get call(): McpCall {
    return (this.described ??= describeCall(this.request, this.httpRequest));
  }
}
