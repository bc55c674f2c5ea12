/** One webhook subscription as it is kept: its key, where it delivers, how it signs, until when. */
export interface WebhookRecord {
  /** Derived from the key (caller, url, name, arguments): the `X-MCP-Subscription-Id` of its POSTs. */
  readonly id: string;
  /** The caller identity (an opaque digest) the subscription belongs to. */
  readonly caller: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly url: string;
  /** Standard Webhooks secrets, the current one first; a rotated-out one stays until `previousUntil`. */
  readonly secrets: readonly string[];
  /** Milliseconds since the epoch after which only the first secret signs. */
  readonly previousUntil: number;
  /** Milliseconds since the epoch when the subscription lapses unless refreshed. */
  readonly expiresAt: number;
}

/**
 * Where webhook subscriptions are kept until they lapse. The default lives in the process; an event store that
 * other instances share (`nestjs-mcp/redis`) brings one of its own (`McpEventStore.webhooks`), so a subscription
 * made on one instance is refreshed, ended and delivered to from any of them.
 */
export interface McpWebhookStore {
  get(id: string): WebhookRecord | undefined | Promise<WebhookRecord | undefined>;
  /** Keeps the record until its `expiresAt` (a later put of the same id replaces it). */
  put(record: WebhookRecord): void | Promise<void>;
  /** True when it was there: exactly one of several instances removing it at once gets true. */
  delete(id: string): boolean | Promise<boolean>;
  /** The live subscriptions to one event type. */
  ofEvent(name: string): readonly WebhookRecord[] | Promise<readonly WebhookRecord[]>;
  /** How many live subscriptions one caller holds, and how many are held in all. */
  count(caller: string): { caller: number; total: number } | Promise<{ caller: number; total: number }>;
}

/** The default store: a map in this process, each entry dropped once it has lapsed. */
export class InMemoryWebhookStore implements McpWebhookStore {
  private readonly records = new Map<string, WebhookRecord>();

  constructor(private readonly now: () => number = Date.now) {}

  get(id: string): WebhookRecord | undefined {
    const record = this.records.get(id);
    if (record && record.expiresAt <= this.now()) {
      this.records.delete(id);
      return undefined;
    }
    return record;
  }

  put(record: WebhookRecord): void {
    this.records.set(record.id, record);
  }

  delete(id: string): boolean {
    return this.records.delete(id);
  }

  ofEvent(name: string): WebhookRecord[] {
    return this.live().filter((record) => record.name === name);
  }

  count(caller: string): { caller: number; total: number } {
    const live = this.live();
    return { caller: live.filter((record) => record.caller === caller).length, total: live.length };
  }

  // At most `maxSubscriptions` entries: a pass over them all is the bound, and it drops what lapsed.
  private live(): WebhookRecord[] {
    const now = this.now();
    for (const [id, record] of this.records) if (record.expiresAt <= now) this.records.delete(id);
    return [...this.records.values()];
  }
}
