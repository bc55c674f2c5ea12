import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { McpConfigurationError } from '../../errors/configuration-error.js';
import { NOT_POSITIVE_INTEGER, WEBHOOK_ALLOW_HOSTS, WEBHOOK_TTL_ORDER } from '../../errors/configuration-messages.js';
import { rejectUnknownOptions, type OptionKeys } from '../../errors/unknown-options.js';

/** The `events.webhooks` option group: how `events/subscribe` callbacks are checked and delivered to. */
export interface McpWebhookOptions {
  /**
   * Hostnames or IP addresses (ports ignored) whose callbacks may resolve to private, loopback or other
   * addresses that are not globally routable. It lifts only that rule: HTTPS and every other check still hold.
   */
  allowHosts?: string[];
  /** Certificates to trust for callbacks besides the system's (a private CA, a receiver's self-signed cert). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** How long one POST may take, connection to response, before it counts as a `timeout`. Default 5 s. */
  timeoutMs?: number;
  /** Tries of one delivery (the first and its retries) before it is given up. Default 4. */
  maxAttempts?: number;
  /** Wait before the first retry; each next one doubles it, up to `maxRetryDelayMs`. Default 1 s. */
  retryDelayMs?: number;
  /** Longest wait between two tries of one delivery. Default 60 s. */
  maxRetryDelayMs?: number;
  /** Occurrences waiting for one subscription; past it the oldest are skipped and a `gap` is sent. Default 100. */
  maxQueue?: number;
  /** Webhook subscriptions one caller may hold; more is -32025. Default 20. */
  maxSubscriptionsPerCaller?: number;
  /** Webhook subscriptions held in all; more is -32025. Default 10,000. */
  maxSubscriptions?: number;
  /** Lifetime granted when a client suggests none. Default 1 hour. */
  defaultTtlMs?: number;
  /** Longest lifetime granted, also for `ttlMs: null` (no expiry is never granted). Default 24 hours. */
  maxTtlMs?: number;
  /** Shortest lifetime granted: a shorter suggestion is raised to it. Default 1 minute. */
  minTtlMs?: number;
  /** Verification POSTs sent to one destination host per `verificationWindowMs`; more is -32025. Default 60. */
  maxVerificationsPerHost?: number;
  /** The window `maxVerificationsPerHost` counts in. Default 1 minute. */
  verificationWindowMs?: number;
  /**
   * Delivery attempts to one subscription within `suspendWindowMs` before its failure rate is judged: at 95 %
   * failed or more, delivery is suspended until the client refreshes. Default 100.
   */
  suspendAfterAttempts?: number;
  /** The window the failure rate is measured over. Default 1 hour. */
  suspendWindowMs?: number;
}

/** The `events` option group. */
export interface McpEventsOptions {
  webhooks?: McpWebhookOptions;
}

export const WEBHOOK_OPTION_KEYS = {
  allowHosts: true,
  ca: true,
  timeoutMs: true,
  maxAttempts: true,
  retryDelayMs: true,
  maxRetryDelayMs: true,
  maxQueue: true,
  maxSubscriptionsPerCaller: true,
  maxSubscriptions: true,
  defaultTtlMs: true,
  maxTtlMs: true,
  minTtlMs: true,
  maxVerificationsPerHost: true,
  verificationWindowMs: true,
  suspendAfterAttempts: true,
  suspendWindowMs: true,
} as const satisfies OptionKeys<McpWebhookOptions>;

export type WebhookSettings = Required<Omit<McpWebhookOptions, 'allowHosts' | 'ca'>> & {
  /** Lower-cased hostnames and addresses. */
  allowHosts: ReadonlySet<string>;
  ca?: McpWebhookOptions['ca'];
};

const DEFAULTS = {
  timeoutMs: 5_000,
  maxAttempts: 4,
  retryDelayMs: 1_000,
  maxRetryDelayMs: 60_000,
  maxQueue: 100,
  maxSubscriptionsPerCaller: 20,
  maxSubscriptions: 10_000,
  defaultTtlMs: 60 * 60 * 1_000,
  maxTtlMs: 24 * 60 * 60 * 1_000,
  minTtlMs: 60 * 1_000,
  maxVerificationsPerHost: 60,
  verificationWindowMs: 60 * 1_000,
  suspendAfterAttempts: 100,
  suspendWindowMs: 60 * 60 * 1_000,
};

/** Checks `events.webhooks` at start-up and fills in the defaults; a value it cannot honour stops start-up. */
export function webhookSettings(options: McpWebhookOptions | undefined): WebhookSettings {
  const given = options ?? {};
  rejectUnknownOptions(given, WEBHOOK_OPTION_KEYS, 'events.webhooks');
  const numbers = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>) {
    const value = given[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1)
      throw new McpConfigurationError(NOT_POSITIVE_INTEGER(`events.webhooks.${key}`, value));
    numbers[key] = value;
  }
  if (numbers.minTtlMs > numbers.maxTtlMs || numbers.defaultTtlMs > numbers.maxTtlMs)
    throw new McpConfigurationError(WEBHOOK_TTL_ORDER);
  // Node's `ca` replaces the trusted roots: the ones given are added to them, as the option promises.
  const ca = given.ca === undefined ? undefined : [...rootCertificates, ...[given.ca].flat()];
  return { ...numbers, allowHosts: allowedHosts(given.allowHosts), ca };
}

function allowedHosts(given: unknown): ReadonlySet<string> {
  if (given === undefined) return new Set();
  const fail = () => new McpConfigurationError(WEBHOOK_ALLOW_HOSTS);
  if (!Array.isArray(given)) throw fail();
  return new Set(
    given.map((host: unknown) => {
      if (typeof host !== 'string' || host.length === 0) throw fail();
      // A port is ignored: the rule is about where a name leads, whatever the port.
      const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
      const bare = (bracketed ? bracketed[1] : isIP(host) === 6 ? host : host.replace(/:\d+$/, '')).toLowerCase();
      if (isIP(bare) === 0 && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(bare))
        throw fail();
      return bare;
    }),
  );
}
