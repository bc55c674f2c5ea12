import { randomUUID } from 'node:crypto';
import { parseClientReply, type ReplyOutcome } from '../../protocol/client-reply.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { jsonFault } from '../../protocol/json-limits.js';
import type { JsonRpcErrorObject, JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { McpError } from '../../protocol/mcp-error.js';
import type { InputRequests, InputResponses } from '../../protocol/mcp-types.js';
import type { Caller } from '../access/caller-identity.js';
import { canonicalDigest } from '../util/canonical-digest.js';
import { ReplyTimeout, type PendingReply, type ReplyRouter } from './reply-router.js';

const BUSY_RETRY = { retryAfterMs: 1_000 };

/**
 * Where a server→client request is written: the stream of the client request that needs the answer. False when
 * it was not written (too large for the transport, the stream closed).
 */
export type ClientStream = (message: JsonRpcRequest) => boolean | void;

/**
 * A call could not get the input it asked for (no answer in time, the client refused, no stream to ask on). A tool call ends with it as an `isError` result; other methods as this -32603.
 */
export class ClientInputError extends McpError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.InternalError, message, undefined, options);
    this.name = 'ClientInputError';
  }
}

export interface ClientRequestsOptions {
  router: ReplyRouter;
  /** The server's name: a request is bound to it and to its caller, so servers sharing a router never mix replies. */
  server: string;
  /** How long one round waits for every answer. */
  timeoutMs: number;
  /** Most calls waiting for client input at once on this instance; the excess ends at once with `ClientInputError`. */
  maxWaiting: number;
  /** Most of them for one identified caller (anonymous callers share the global cap alone). */
  maxWaitingPerCaller: number;
  /** Largest reply accepted, as JSON text; a bigger one is refused and the request keeps waiting. */
  maxReplyBytes: number;
}

/**
 * Server→client requests for clients that have no session (the 2025-era leg): each input request of a round
 * is registered with the router under a fresh `srv-<uuid>` id, bound to who asked, then written to the stream
 * of the call that needs it as a real JSON-RPC request; the client POSTs its response to the endpoint, from
 * where `acceptReply` routes it back. Transport-free: HTTP and stdio hand in their stream and their replies.
 */
export class ClientRequests {
  private waiting = 0;
  private readonly waitingPerCaller = new Map<string, number>();

  constructor(
    private readonly options: ClientRequestsOptions,
    private readonly newId: () => string = () => `srv-${randomUUID()}`,
  ) {}

  /** Calls waiting for client input on this instance now. */
  get size(): number {
    return this.waiting;
  }

  /**
   * The owner a request is bound to: the server and the caller (anonymous callers, with no authentication,
   * share one owner). Undefined for a caller whose principal identifies nobody: every such caller would share
   * it, so nobody may be asked for input on its behalf, nor answer for it.
   */
  private owner(caller: Caller): string | undefined {
    return caller === null ? undefined : canonicalDigest([this.options.server, caller ?? null]);
  }

  /**
   * Asks every request of one round and resolves with the answers under the keys they were asked under. Ends
   * with `ClientInputError` when any is not answered in time or answered with an error; when `signal` fires
   * (the call's deadline, the client gone), every request is withdrawn and the call's own error stands.
   */
  async ask(
    requests: InputRequests,
    caller: Caller,
    stream: ClientStream | undefined,
    signal: AbortSignal,
  ): Promise<InputResponses> {
    const owner = this.owner(caller);
    if (owner === undefined)
      throw new ClientInputError(
        'Error: the caller has no identity (its principal is empty), so no answer could be told to be its own',
      );
    if (!stream)
      throw new ClientInputError(
        'Error: this transport cannot carry requests to the client, so the input cannot be asked for',
      );
    // Over the bound of waiting calls the call is told to come back later (-32023, HTTP 429): a slot frees when
    // a waiting call is answered or gives up.
    if (this.waiting >= this.options.maxWaiting)
      throw McpError.rateLimited('Server busy: too many calls are waiting for client input, retry later', BUSY_RETRY);
    const mine = caller === undefined ? 0 : (this.waitingPerCaller.get(owner) ?? 0);
    if (caller !== undefined && mine >= this.options.maxWaitingPerCaller)
      throw McpError.rateLimited(
        `Server busy: this caller already has ${this.options.maxWaitingPerCaller} calls waiting for client input, retry later`,
        BUSY_RETRY,
      );
    this.waiting++;
    if (caller !== undefined) this.waitingPerCaller.set(owner, mine + 1);
    const asked: Array<{ key: string; request: JsonRpcRequest; pending: PendingReply }> = [];
    const withdraw = () => Promise.all(asked.map(({ pending }) => pending.cancel()));
    try {
      const expiresAt = Date.now() + this.options.timeoutMs;
      // Every request is registered before the first is sent: an answer may arrive before the next is written.
      for (const [key, { method, params }] of Object.entries(requests)) {
        if (signal.aborted) throw new ClientInputError('Error: the call ended before the client was asked');
        const id = this.newId();
        const pending = await this.options.router.register({ id, owner, expiresAt });
        asked.push({
          key,
          request: { jsonrpc: '2.0', id, method, params: params as Record<string, unknown> },
          pending,
        });
      }
      signal.addEventListener('abort', withdraw, { once: true });
      for (const { request } of asked) {
        // A request the stream refused would be waited for until the deadline, with the client never asked.
        if (stream(request) === false)
          throw new ClientInputError(
            `Error: ${request.method} could not be sent to the client (larger than the transport's message limit, or the stream closed)`,
          );
      }
      const answers: InputResponses = {};
      await Promise.all(
        asked.map(async ({ key, request, pending }) => {
          const reply = await pending.reply.catch((error: unknown) => {
            if (error instanceof ReplyTimeout)
              throw new ClientInputError(
                `Error: the client did not answer ${request.method} within ${this.options.timeoutMs} ms`,
                { cause: error },
              );
            // Withdrawn: the call ended (its own error stands), or the server is shutting down.
            throw new ClientInputError(`Error: the server stopped waiting for the answer to ${request.method}`, {
              cause: error,
            });
          });
          if ('error' in reply) throw new ClientInputError(refusal(request.method, reply.error));
          answers[key] = reply.result as unknown as InputResponses[string];
        }),
      );
      return answers;
    } finally {
      signal.removeEventListener('abort', withdraw);
      await withdraw();
      this.waiting--;
      if (caller !== undefined) {
        const left = this.waitingPerCaller.get(owner)! - 1;
        if (left === 0) this.waitingPerCaller.delete(owner);
        else this.waitingPerCaller.set(owner, left);
      }
    }
  }

  /**
   * Routes a client's posted response to the call that waits for it; a refused one changes nothing. A caller
   * without identity owns no request, so it answers none.
   */
  async acceptReply(message: Record<string, unknown>, caller: Caller): Promise<ReplyOutcome> {
    const owner = this.owner(caller);
    const parsed = parseClientReply(message);
    // Too deep to measure without overflowing the stack, or a number JSON cannot carry: refused as malformed,
    // before anything serialises it.
    if (!parsed || jsonFault(parsed.reply) !== undefined) return 'malformed';
    if (Buffer.byteLength(JSON.stringify(parsed.reply)) > this.options.maxReplyBytes) return 'too-large';
    if (owner === undefined) return 'forbidden';
    return this.options.router.deliver(parsed.id, owner, parsed.reply);
  }
}

/**
 * Why a call got no answer from a client that replied with an error. A 2025-era client declared what it can
 * answer only in `initialize`, which a stateless server does not keep, so it is asked anyway: -32601 is how it
 * says it cannot.
 */
function refusal(method: string, error: JsonRpcErrorObject): string {
  if (error.code === ErrorCode.MethodNotFound)
    return `Error: the client does not support ${method} (it answered ${error.code} ${error.message})`;
  return `Error: the client refused ${method}: ${error.message} (${error.code})`;
}
