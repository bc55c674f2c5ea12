import type { Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions } from 'ioredis';

/** Options of `McpRedisModule.forRoot` / `forRootAsync`, and of `McpRedisConnections.open`. */
export interface McpRedisOptions {
  /**
   * Where Redis is (`redis://[:password@]host:port[/db]`, `rediss://` for TLS). The module opens its two
   * connections from it (commands, and pub/sub, which needs its own) and closes them at shutdown.
   */
  url?: string;
  /**
   * Instead of `url`: the application's existing ioredis connection, shared for commands. The module never
   * closes it. Pub/sub needs a connection of its own: `subscriber`, or else a duplicate of this one that the
   * module opens and closes.
   */
  connection?: Redis | Cluster;
  /** The connection to subscribe on, when `connection` is given and the app has one for pub/sub already. */
  subscriber?: Redis | Cluster;
  /**
   * Instead of `url`: a Redis Cluster, by some of its nodes (the others are discovered), with ioredis Cluster
   * options (`redisOptions` in them for each node's connection: password, TLS). The module opens a Cluster for
   * commands and one for pub/sub, and closes them at shutdown. An app's own `Cluster` goes in `connection`.
   */
  cluster?: { nodes: ClusterNode[]; options?: ClusterOptions };
  /** Extra ioredis options for the connections opened from `url`. */
  redisOptions?: RedisOptions;
  /** Prepended to every key and channel, so several apps (or tests) share one Redis. Default `mcp:`. */
  keyPrefix?: string;
  /** Longest wait for one command's answer, in milliseconds, before the call that needed it fails. Default 2000. */
  commandTimeoutMs?: number;
  /** Most commands waiting for an answer at once; beyond it a call fails at once instead of queueing. Default 1000. */
  maxPendingCommands?: number;
}
