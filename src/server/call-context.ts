import type { HeaderBag } from '../protocol/header-codec.js';
import type { Caller } from './access/caller-identity.js';
import type { McpCall } from './mcp-call.js';
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
  readonly headers: HeaderBag | undefined;
  readonly notify: McpRequestContext['notify'];
  readonly closeStream: McpRequestContext['closeStream'];
  readonly httpRequest: unknown;
  readonly principal: unknown;
  readonly scopes: readonly string[] | undefined;
  readonly credentialExpiresAt: number | undefined;

  constructor(
    context: McpRequestContext,
    private readonly signalOf: () => AbortSignal,
    readonly call: McpCall | undefined,
    readonly caller: Caller,
  ) {
    this.headers = context.headers;
    this.notify = context.notify;
    this.closeStream = context.closeStream;
    this.httpRequest = context.httpRequest;
    this.principal = context.principal;
    this.scopes = context.scopes;
    this.credentialExpiresAt = context.credentialExpiresAt;
  }

  get signal(): AbortSignal {
    return this.signalOf();
  }
}
