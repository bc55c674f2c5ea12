import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../protocol/error-codes.js';
import { echoableId, errorResponse, isPlainObject, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { McpKernel } from '../server/kernel/mcp-kernel.js';
import { isThenable } from '../server/util/when-ready.js';
import type { JsonWriter } from './json-writer.js';
import { dropUnread } from './body-reader.js';
import type {
  HttpAuthentication,
  HttpAuthenticationRefusal,
  McpHttpAuthenticator,
  PreparedBody,
} from './mcp-http-options.js';

const AUTHENTICATION_FAILED: HttpAuthentication = Object.freeze({
  ok: false,
  status: 500,
  code: ErrorCode.InternalError,
  message: 'Internal error: the caller could not be authenticated',
});

/**
 * The driver's authentication step around its `McpHttpAuthenticator`: the verdict (an authenticator that throws
 * is the server's fault), the refusals as the client and the interceptors see them, and the step-up challenge.
 */
export class CallerAuthentication {
  /** Whether the headers suffice (a bearer token), so authentication runs before the body is read. */
  readonly fromHeaders: boolean;
  /** Whether authentication reads what the app's guards set, so it (and the body read) runs in the route. */
  readonly afterGuards: boolean;

  constructor(
    private readonly kernel: Pick<McpKernel, 'observeRefusal'>,
    private readonly writer: JsonWriter,
    private readonly authenticator: McpHttpAuthenticator | undefined,
  ) {
    // Read once: every request asks, and an authenticator's answer is fixed when it is built.
    this.fromHeaders = authenticator?.fromHeaders === true;
    this.afterGuards = authenticator?.afterGuards === true;
  }

  /**
   * What the headers already established before the body, else the authenticator's verdict now (if any). Only
   * an authenticator's verdict is a promise: a request without one is not suspended for it.
   */
  once(
    known: HttpAuthentication | undefined,
    req: IncomingMessage,
    httpRequest: unknown,
  ): HttpAuthentication | undefined | Promise<HttpAuthentication> {
    return known ?? (this.authenticator && this.verdict(this.authenticator, req, httpRequest));
  }

  /** The authenticator's verdict; call only when there is one (`fromHeaders`). */
  run(req: IncomingMessage, httpRequest: unknown): HttpAuthentication | Promise<HttpAuthentication> {
    return this.verdict(this.authenticator!, req, httpRequest);
  }

  /**
   * The answer to a request the app's own guard refused as unauthenticated: with an authenticator, the challenge
   * it would have sent (clients need it to get or refresh a token); without one, the JSON-RPC 401.
   */
  async refuseUnauthenticated(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal: HttpAuthenticationRefusal = (await this.authenticator?.refusal?.(req)) ?? {
      ok: false,
      status: 401,
      code: ErrorCode.Unauthorized,
      message: 'Unauthorized',
    };
    this.writer.write(res, refusal.status, errorResponse(null, refusal.code, refusal.message), refusal.headers);
  }

  /**
   * A refused authentication, shown to the interceptors like any answer: the message, or for a body never read
   * (`unread`), what the request's envelope headers say of it.
   */
  async refuse(
    auth: HttpAuthenticationRefusal,
    message: unknown,
    res: ServerResponse,
    httpRequest: unknown,
    unread?: IncomingMessage,
  ): Promise<void> {
    const refusal = await this.kernel.observeRefusal(
      message,
      // A reply's id is the server's own (`srv-…`): an error about a reply is addressed to no request (null).
      errorResponse(
        isPlainObject(message) && 'method' in message ? echoableId(message) : null,
        auth.code,
        auth.message,
      ),
      httpRequest,
      unread?.headers,
    );
    this.writer.write(res, auth.status, refusal, auth.headers);
  }

  /**
   * A caller refused in the route (`McpHttpDriver.handle`): its answer, and its body, when still unread (`read`
   * undefined), dropped to `bodyLimit` so the client gets to read the answer.
   */
  async refuseInRoute(
    auth: HttpAuthenticationRefusal,
    read: PreparedBody | undefined,
    req: IncomingMessage,
    res: ServerResponse,
    httpRequest: unknown,
    bodyLimit: number,
  ): Promise<void> {
    if (req.method !== 'POST')
      return this.writer.write(res, auth.status, errorResponse(null, auth.code, auth.message), auth.headers);
    await this.refuse(auth, read?.parsed, res, httpRequest, req);
    if (!read) dropUnread(req, bodyLimit);
  }

  /** The step-up challenge of an InsufficientScope error, when an authenticator can make one. */
  scopeChallenge(response: JsonRpcResponse): Record<string, string> | undefined {
    return 'error' in response && response.error.code === ErrorCode.InsufficientScope
      ? this.authenticator?.insufficientScopeHeaders(requiredScopesOf(response.error.data))
      : undefined;
  }

  /** An authenticator that throws (a `fromRequest` or session lookup) is the server's fault: 500, never a rejection. */
  private verdict(
    authenticator: McpHttpAuthenticator,
    req: IncomingMessage,
    httpRequest: unknown,
  ): HttpAuthentication | Promise<HttpAuthentication> {
    try {
      const verdict = authenticator.authenticate(req, httpRequest);
      return isThenable(verdict) ? Promise.resolve(verdict).catch(() => AUTHENTICATION_FAILED) : verdict;
    } catch {
      return AUTHENTICATION_FAILED;
    }
  }
}

/** The scopes an InsufficientScope error names; a handler may have thrown one with any data. */
function requiredScopesOf(data: unknown): string[] {
  const scopes = (data as { requiredScopes?: unknown } | undefined)?.requiredScopes;
  return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [];
}
