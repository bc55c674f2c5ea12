import type { HeaderBag } from '../protocol/header-codec.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';

/**
 * How a call reached its handler: in an HTTP request, without one (stdio, `MCPServer.handleRequest`), or as a
 * round of a queued task on a worker (no request at all: the call as the task store keeps it).
 */
export type McpTransportKind = 'http' | 'stdio' | 'queue';

/** What a transport knows about a request; every field is optional and the kernel works without any. */
export interface McpRequestContext {
  /** Request headers (lower-case names), for tool-specific `Mcp-Param-*` checks. */
  headers?: HeaderBag;
  /** Fires when the client goes away or the transport gives up: the handler's signal follows it. */
  signal?: AbortSignal;
  /**
   * Where messages on this request's stream go: notifications (progress, log, listen events) and, on the
   * 2025-era leg, the server's requests to the client. Without it none are sent. Returns false when the
   * message was not written (larger than the transport sends, or the stream closed), true or nothing when it
   * was: a dropped notification is lost, but a dropped request would be waited for in vain.
   */
  notify?: (message: JsonRpcNotification | JsonRpcRequest) => boolean | void;
  /**
   * Ends the request's stream now while the call goes on (SSE polling, 2025-11-25): what it sends later, its
   * result included, waits for the client to resume the stream. Only a 2025-era session's stream has it.
   */
  closeStream?: () => boolean;
  /**
   * Starts the request's response as an SSE stream now, with an event the client's SSE parser does not deliver
   * as a message, so a client or proxy sees a long call under way before its first notification. False when
   * there is no stream to start (the client does not accept SSE, the response is complete or already sent).
   */
  openStream?: () => boolean;
  /** The transport's own request object, handed to handlers as `context.httpRequest`. */
  httpRequest?: unknown;
  /** The authenticated principal; bound into request-state signatures. */
  principal?: unknown;
  /**
   * The OAuth scopes granted to the caller. Primitives registered with `requiredScopes` are listed and callable
   * only when all of theirs are granted; without this field none are granted, so such primitives fail closed.
   */
  scopes?: readonly string[];
  /**
   * When the caller's credential expires, in milliseconds since the epoch: a listen stream ends then, with its
   * closing result, so notifications stop reaching a caller whose token is no longer valid. Absent: never.
   */
  credentialExpiresAt?: number;
  /**
   * Subscribes to the transport giving up on the request (the client went away, shutdown), as a cheaper
   * alternative to `signal`: the kernel then builds no AbortController for calls whose handlers never look.
   */
  onAbort?(listener: (reason: unknown) => void): () => void;
}
