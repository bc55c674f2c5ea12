import type { McpRedisConnections } from './redis-connections.js';
import { RedisEventBus } from './redis-event-bus.js';
import { RedisRequestStateStore } from './redis-request-state.store.js';

/**
 * Every shared part of an MCP server, backed by Redis, under the names `McpModule` takes them, so the whole
 * set spreads into its options:
 *
 * ```ts
 * McpModule.forRootAsync({ inject: [McpRedisBackends], useFactory: (redis: McpRedisBackends) => ({ name, version, ...redis }) })
 * ```
 */
export class McpRedisBackends {
  readonly eventBus: RedisEventBus;
  readonly requestStateStore: RedisRequestStateStore;

  constructor(connections: McpRedisConnections) {
    this.eventBus = new RedisEventBus(connections);
    this.requestStateStore = new RedisRequestStateStore(connections);
  }

  /** Stops what listens on Redis; the connections close with `McpRedisConnections.close`. */
  close(): void {
    this.eventBus.close();
  }
}
