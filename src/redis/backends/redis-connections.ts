import { Logger } from '@nestjs/common';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { McpRedisOptions } from './redis-options.js';
import { McpRedisUnavailableError } from './redis-unavailable-error.js';
import { McpConfigurationError } from '../../server/errors/configuration-error.js';

const REDIS_NO_URL = 'McpRedisModule needs a "url", a "cluster" or a "connection"';

/** A connection the module sends commands or subscribes on: one Redis, or a Redis Cluster. */
export type McpRedisClient = Redis | Cluster;

/** What a connection the module opens itself does while Redis is away: retry for ever, queue nothing. */
const OWN_CONNECTION: RedisOptions = {
  // A command sent while disconnected fails at once: queued, it would hold memory and its caller for the outage.
  enableOfflineQueue: false,
  // A write cut off mid-flight must not run again on reconnect: a consumed state would read as replayed.
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 5_000,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 2_000),
};
// Channels are subscribed again on every "ready" (see onSubscriberReady), which also covers a first connect that
// failed; ioredis' own resubscription would subscribe twice.
const OWN_SUBSCRIBER: RedisOptions = { ...OWN_CONNECTION, autoResubscribe: false };
// The same for a Cluster the module opens: the offline queue and the retries are the Cluster's, its nodes'
// connections take the rest. Its pub/sub connection is one node the Cluster picks, and picks again (resubscribing
// there) when that node goes away.
const { enableOfflineQueue, retryStrategy, ...OWN_NODE_CONNECTION } = OWN_CONNECTION;
const OWN_CLUSTER: ClusterOptions = { enableOfflineQueue, clusterRetryStrategy: retryStrategy };

const DEFAULT_PREFIX = 'mcp:';
const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
const DEFAULT_MAX_PENDING = 1_000;

/**
 * The two Redis connections every backend shares, commands and pub/sub (a subscribed connection can run nothing
 * else), and the one way commands are sent: `run`, which fails fast instead of waiting for a Redis that is not
 * there. Connections opened from a URL are the module's to close; connections handed in are the app's.
 */
export class McpRedisConnections {
  readonly keyPrefix: string;
  private readonly commandTimeoutMs: number;
  private readonly maxPending: number;
  private pending = 0;
  private readonly detach: Array<() => void> = [];

  private constructor(
    readonly commands: McpRedisClient,
    readonly subscriber: McpRedisClient,
    private readonly owned: readonly McpRedisClient[],
    options: McpRedisOptions,
    private readonly logger: Pick<Logger, 'warn' | 'log'>,
  ) {
    this.keyPrefix = options.keyPrefix ?? DEFAULT_PREFIX;
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.maxPending = options.maxPendingCommands ?? DEFAULT_MAX_PENDING;
    this.watch(commands, 'command');
    if (subscriber !== commands) this.watch(subscriber, 'subscriber');
    if (subscriber.isCluster) this.connectEveryNode(subscriber as Cluster);
  }

  /**
   * Opens (or adopts) the connections without waiting for Redis: an app whose Redis is down starts, serves
   * what needs no Redis, and the connections keep retrying in the background.
   */
  static open(
    options: McpRedisOptions,
    logger: Pick<Logger, 'warn' | 'log'> = new Logger('McpRedis'),
  ): McpRedisConnections {
    if (options.connection) {
      const subscriber = options.subscriber ?? subscriberBeside(options.connection);
      return new McpRedisConnections(
        options.connection,
        subscriber,
        options.subscriber ? [] : [subscriber],
        options,
        logger,
      );
    }
    if (options.cluster) {
      const { nodes, options: clusterOptions } = options.cluster;
      const commands = new Cluster(nodes, {
        ...OWN_CLUSTER,
        ...clusterOptions,
        redisOptions: { ...OWN_NODE_CONNECTION, ...clusterOptions?.redisOptions },
      });
      const subscriber = commands.duplicate();
      return new McpRedisConnections(commands, subscriber, [commands, subscriber], options, logger);
    }
    if (!options.url) throw new McpConfigurationError(REDIS_NO_URL);
    const commands = new Redis(options.url, { ...OWN_CONNECTION, ...options.redisOptions });
    const subscriber = new Redis(options.url, { ...OWN_SUBSCRIBER, ...options.redisOptions });
    return new McpRedisConnections(commands, subscriber, [commands, subscriber], options, logger);
  }

  /** The full key (or channel) name of `parts` under the prefix. */
  key(...parts: string[]): string {
    return this.keyPrefix + parts.join(':');
  }

  /**
   * The key of one entity (a task, a session, the limits of a server), `parts` in a hash tag: every key that
   * starts with it is in one hash slot, so one script may touch them all on a Redis Cluster, while other
   * entities spread over the nodes. On a single Redis the braces are just characters of the name.
   */
  slot(...parts: string[]): string {
    return `${this.keyPrefix}{${parts.join(':')}}`;
  }

  /**
   * Sends one command, bounded three ways so that no call waits on Redis for long and nothing piles up in
   * memory during an outage: refused at once when the connection is not ready or `maxPendingCommands` are still
   * unanswered (a hung Redis holds them until it answers or the socket dies, so they count until then), and
   * failed after `commandTimeoutMs` without an answer. Every failure is an `McpRedisUnavailableError`.
   */
  run<T>(what: string, command: (redis: McpRedisClient) => Promise<T>): Promise<T> {
    if (this.commands.status !== 'ready') {
      return Promise.reject(
        new McpRedisUnavailableError(`Redis is unavailable (${what}): the connection is ${this.commands.status}`),
      );
    }
    if (this.pending >= this.maxPending) {
      return Promise.reject(
        new McpRedisUnavailableError(
          `Redis is unavailable (${what}): ${this.pending} commands still wait for an answer`,
        ),
      );
    }
    this.pending++;
    const sent = command(this.commands).finally(() => this.pending--);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new McpRedisUnavailableError(
              `Redis is unavailable (${what}): no answer within ${this.commandTimeoutMs} ms`,
            ),
          ),
        this.commandTimeoutMs,
      );
      sent.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(
            new McpRedisUnavailableError(`Redis is unavailable (${what}): ${(error as Error)?.message ?? error}`, {
              cause: error,
            }),
          );
        },
      );
    });
  }

  /** Commands sent and not answered yet. */
  get pendingCommands(): number {
    return this.pending;
  }

  /** Runs `subscribe` now if the pub/sub connection is ready, and again every time it reconnects. */
  onSubscriberReady(subscribe: () => void): () => void {
    this.subscriber.on('ready', subscribe);
    if (this.subscriber.status === 'ready') subscribe();
    return () => this.subscriber.off('ready', subscribe);
  }

  /**
   * Runs `ready` once, when the command connection is ready for the first time (at once if it is already): what
   * waits on the first connect, which is no outage, rather than on a reconnection.
   */
  onFirstReady(ready: () => void): () => void {
    if (this.commands.status === 'ready') {
      ready();
      return () => undefined;
    }
    this.commands.once('ready', ready);
    return () => this.commands.off('ready', ready);
  }

  /**
   * Runs `lost` each time a node leaves a Redis Cluster the channels are subscribed on (never on a single Redis).
   * The pub/sub connection is one node's, and when that node goes away ioredis subscribes on another by itself,
   * with no "ready" to tell: any node leaving may have been that one, and messages published meanwhile are lost.
   */
  onClusterNodeLost(lost: () => void): () => void {
    if (!this.subscriber.isCluster) return () => undefined;
    const cluster = this.subscriber as Cluster;
    cluster.on('-node', lost);
    return () => cluster.off('-node', lost);
  }

  /** Round-trips a PING, for readiness checks: rejects like any command when Redis is away. */
  async ping(): Promise<void> {
    await this.run('PING', (redis) => redis.ping());
  }

  /** True while both connections are up. */
  get ready(): boolean {
    return this.commands.status === 'ready' && this.subscriber.status === 'ready';
  }

  /** Closes the connections the module opened; the app's own are left as they are, minus our listeners. */
  async close(): Promise<void> {
    // disconnect, not quit: quit waits for an answer that a Redis that is down never sends.
    await Promise.all(this.owned.map(disconnected));
    for (const undo of this.detach.splice(0)) undo();
  }

  /**
   * A Cluster connects to a node only once a command goes there, and notices a node leave (`-node`) only through
   * that connection: the pub/sub Cluster sends commands nowhere, so it is sent a PING to every node it learns of.
   */
  private connectEveryNode(cluster: Cluster): void {
    const ping = (node: Redis) => void node.ping().catch(() => undefined);
    const pingAll = () => cluster.nodes('all').forEach(ping);
    cluster.on('ready', pingAll);
    cluster.on('+node', ping);
    if (cluster.status === 'ready') pingAll();
    this.detach.push(() => {
      cluster.off('ready', pingAll);
      cluster.off('+node', ping);
    });
  }

  /** Logs an outage once when it starts and once when it ends, not once per reconnection attempt. */
  private watch(redis: McpRedisClient, role: string): void {
    let down = false;
    const onError = (error: Error) => {
      if (down) return;
      down = true;
      this.logger.warn(`Redis ${role} connection lost (${error.message}); calls that need Redis fail until it is back`);
    };
    const onReady = () => {
      if (!down) return;
      down = false;
      this.logger.log(`Redis ${role} connection is back`);
    };
    redis.on('error', onError);
    redis.on('ready', onReady);
    this.detach.push(() => {
      redis.off('error', onError);
      redis.off('ready', onReady);
    });
  }
}

/**
 * The pub/sub connection beside an app's connection: a duplicate, since a subscribed connection runs nothing
 * else. A Cluster's duplicate keeps the app's options: it resubscribes by itself when its pub/sub node changes.
 */
function subscriberBeside(connection: McpRedisClient): McpRedisClient {
  // isCluster rather than instanceof: the app's ioredis may be another copy of the package than this module's.
  return connection.isCluster ? (connection as Cluster).duplicate() : (connection as Redis).duplicate(OWN_SUBSCRIBER);
}

/** Disconnects and resolves once the connection has ended (or soon after, should no socket be left to close). */

function disconnected(redis: McpRedisClient): Promise<void> {
  if (redis.status === 'end') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1_000);
    redis.once('end', () => {
      clearTimeout(timer);
      resolve();
    });
    redis.disconnect();
  });
}
