import type { IncomingMessage } from 'node:http';
import type { McpCorsOptions } from './policy/cors-policy.js';
import type { HostOriginOptions } from './policy/host-origin-policy.js';

export interface McpHttpOptions extends HostOriginOptions {
  /** Largest request body accepted, in bytes (after decompression). Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * How long a request's body may take to arrive once its headers are in; past it the request gets 408 and its
   * connection is closed, so a stalled upload cannot hold a socket. Applies to this endpoint only. Default 30 s;
   * 0 disables.
   */
  bodyTimeoutMs?: number;
  /** Largest response (one JSON body or the final SSE message), in bytes; a bigger result becomes -32603. Default 4 MiB. */
  maxResponseBytes?: number;
  /** Interval of `:` keep-alive comments on an open SSE stream, so proxies do not drop a quiet one. Default 15 s; 0 disables. */
  sseKeepAliveMs?: number;
  /** On shutdown, how long in-flight calls may run before they are aborted. Default 5 s. */
  drainTimeoutMs?: number;
  /** Answer CORS preflights and mark responses readable for browser clients from the allowed origins. Default off. */
  cors?: boolean | McpCorsOptions;
  /** Establishes the caller of every POST before it is classified; without it requests are anonymous. */
  authenticator?: McpHttpAuthenticator;
}

/**
 * The caller a request was authenticated as (and when its credential expires, in epoch ms: its listen streams
 * end then), or the refusal to send instead of processing it.
 */
/** An authentication that failed: the status, JSON-RPC error and headers (the challenge) of the answer. */
export interface HttpAuthenticationRefusal {
  ok: false;
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}

export type HttpAuthentication =
  { ok: true; principal: unknown; scopes: readonly string[]; credentialExpiresAt?: number } | HttpAuthenticationRefusal;

/** The authentication step of the driver (an OAuth resource server, for one). */
export interface McpHttpAuthenticator {
  /**
   * True when `authenticate` needs only the request's headers (a bearer token): it then runs before the body is
   * read. Otherwise (what the app's guards set) it runs once the framework handed the request over.
   */
  readonly fromHeaders?: boolean;
  /**
   * True when `authenticate` may refuse a caller for what the app's guards set (`auth.fromRequest`): the body is
   * then read in the route, after the guards and the authentication. An authenticator that never refuses (the
   * app guard's caller) leaves the body to be read before the route, as Nest reads every route's body.
   */
  readonly afterGuards?: boolean;
  /** A verdict known at once may be returned as it is: the driver then spends no microtask on it. */
  authenticate(req: IncomingMessage, httpRequest: unknown): HttpAuthentication | Promise<HttpAuthentication>;
  /** The answer to a request something upstream (the app's own guard) refused as unauthenticated. */
  refusal?(req: IncomingMessage): Promise<HttpAuthenticationRefusal>;
  /** The headers of a 403 for a request that lacks scopes: the step-up challenge. */
  insufficientScopeHeaders(requiredScopes: readonly string[]): Record<string, string>;
}

/** A refusal decided before the body is parsed. */
export interface HttpRejection {
  status: number;
  message: string;
  headers?: Record<string, string>;
  /** The JSON-RPC code of the body; by default -32700 for 400 and -32600 otherwise. */
  code?: number;
}

/**
 * What a front layer did before the route (`McpHttpDriver.admit`): the request passed the header rungs and,
 * when the headers sufficed, `authentication`; and the body, when the transport already read it (`raw`, preferred)
 * or a framework parsed it (`parsed`). Without either, `handle` reads the body itself, after authenticating.
 */
export interface PreparedBody {
  readonly raw?: Buffer;
  readonly parsed?: unknown;
  readonly authentication?: HttpAuthentication;
}
