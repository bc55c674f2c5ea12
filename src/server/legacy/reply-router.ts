import type { JsonRpcErrorObject } from '../../protocol/jsonrpc.js';

/** A client's answer to one server→client request (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
export type ClientReply = { result: Record<string, unknown> } | { error: JsonRpcErrorObject };

/** A server→client request waiting for its reply. */
export interface PendingRequest {
  /** The JSON-RPC id it is sent under: unique across instances and restarts (`srv-<uuid>`), never a counter. */
  id: string;
  /**
   * Who may answer it: an opaque digest of the caller's principal and the server that sent it, compared
   * exactly. A reply carrying another owner is refused and leaves the request waiting.
   */
  owner: string;
  /** When it is withdrawn, in epoch ms: `reply` then rejects with `ReplyTimeout` and the id is forgotten. */
  expiresAt: number;
}

/** The waiting side of a registered request. */
export interface PendingReply {
  /**
   * Settles once: with the client's reply, or rejects with `ReplyTimeout` at the deadline or `ReplyCancelled`
   * when withdrawn. It is marked handled, so a caller that stops listening leaves no unhandled rejection.
   */
  readonly reply: Promise<ClientReply>;
  /** Withdraws the request (the call ended another way); a later reply is `unknown`. Idempotent. */
  cancel(): Promise<void>;
}

/**
 * What became of a reply: handed to the call that waits for it, no request with that id is waiting (never
 * sent, already answered, timed out, or withdrawn), or the request waits for another owner.
 */
export type ReplyDelivery = 'delivered' | 'unknown' | 'forbidden';

/**
 * Routes the replies to server→client requests back to the call that sent them. A stateless 2025-era client
 * answers an `elicitation/create` with a new POST that no session ties to the call, and with several
 * instances it may land on any of them; the router is the only place that knows where the call waits.
 *
 * The contract, for every implementation:
 * - `register` resolves only once any instance's `deliver` can see the request, so the request is sent after it.
 * - `deliver` hands the reply to the waiting call wherever it runs, at most once per id; a reply for an
 *   unknown id, or from another owner, has no effect on any pending request.
 * - A request is forgotten when delivered, withdrawn or expired: nothing outlives `expiresAt`.
 *
 * The default lives in the process. A shared one (Redis, say) keeps a key per pending id holding the owner and
 * the waiting instance, with a TTL at `expiresAt`, and a channel per instance: `deliver` checks and deletes
 * the key atomically and publishes the reply on the waiting instance's channel, whose subscriber settles
 * the local `reply`.
 */
export interface ReplyRouter {
  register(request: PendingRequest): Promise<PendingReply>;
  deliver(id: string, owner: string, reply: ClientReply): Promise<ReplyDelivery>;
  /** Requests waiting on this instance: what the health check and the leak tests read. */
  readonly size: number;
  /** Rejects every waiting reply with `ReplyCancelled` and releases what the router holds. */
  close(): Promise<void>;
}

/** The request's deadline passed with no reply. */
export class ReplyTimeout extends Error {
  constructor(readonly id: string) {
    super(`No reply to server request ${id} before its deadline`);
    this.name = 'ReplyTimeout';
  }
}

/** The request was withdrawn (the call ended, the client went away, or the router closed). */
export class ReplyCancelled extends Error {
  constructor(readonly id: string) {
    super(`Server request ${id} was withdrawn`);
    this.name = 'ReplyCancelled';
  }
}

interface Waiter {
  owner: string;
  timer: NodeJS.Timeout;
  resolve(reply: ClientReply): void;
  reject(error: Error): void;
}

/** The default router: pending requests in a map of this process. One instance, or sticky routing by reply id. */
export class InProcessReplyRouter implements ReplyRouter {
  private readonly waiting = new Map<string, Waiter>();

  get size(): number {
    return this.waiting.size;
  }

  async register(request: PendingRequest): Promise<PendingReply> {
    const { id, owner, expiresAt } = request;
    if (this.waiting.has(id)) throw new Error(`A server request with id ${id} is already waiting: ids must be unique`);
    let waiter!: Waiter;
    const reply = new Promise<ClientReply>((resolve, reject) => {
      // A waiting call holds its HTTP exchange open, which keeps the process up; the timer alone should not.
      const timer = setTimeout(
        () => this.settle(id)?.reject(new ReplyTimeout(id)),
        Math.max(expiresAt - Date.now(), 0),
      );
      timer.unref();
      waiter = { owner, timer, resolve, reject };
    });
    reply.catch(() => undefined);
    this.waiting.set(id, waiter);
    return {
      reply,
      cancel: async () => this.withdraw(id, waiter),
    };
  }

  async deliver(id: string, owner: string, reply: ClientReply): Promise<ReplyDelivery> {
    const waiter = this.waiting.get(id);
    if (!waiter) return 'unknown';
    if (waiter.owner !== owner) return 'forbidden';
    this.settle(id)!.resolve(reply);
    return 'delivered';
  }

  async close(): Promise<void> {
    for (const id of [...this.waiting.keys()]) this.settle(id)?.reject(new ReplyCancelled(id));
  }

  private withdraw(id: string, waiter: Waiter): void {
    // The id may since belong to nobody (delivered, expired): only this registration's own entry goes.
    if (this.waiting.get(id) === waiter) this.settle(id)!.reject(new ReplyCancelled(id));
  }

  private settle(id: string): Waiter | undefined {
    const waiter = this.waiting.get(id);
    if (!waiter) return undefined;
    this.waiting.delete(id);
    clearTimeout(waiter.timer);
    return waiter;
  }
}
