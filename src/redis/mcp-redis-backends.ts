import type { McpRedisConnections } from './redis-connections.js';
import { RedisEventBus } from './redis-event-bus.js';
import { RedisReplyRouter } from './redis-reply-router.js';
import { RedisRequestStateStore } from './redis-request-state-store.js';
import { RedisTaskStore } from './redis-task-store.js';

/**
 * Every shared part of an MCP server, backed by Redis, under the names `McpModule` takes them, so the whole
 * set spreads into its options (`tasks: { ...redis.tasks, ttlMs }` to set other task options as well):
 *
 * ```ts
 * McpModule.forRootAsync({ inject: [McpRedisBackends], useFactory: (redis: McpRedisBackends) => ({ name, version, ...redis }) })
 * ```
 */
export class McpRedisBackends {
  /** List-changed, resource-updated and task-status events for listen streams on every instance. */
  readonly eventBus: RedisEventBus;
  /** Consumed single-use request states, refused on every instance. */
  readonly requestStateStore: RedisRequestStateStore;
  /** Replies of 2025-era clients, routed to the instance where the call waits. */
  readonly replyRouter: RedisReplyRouter;
  /** Tasks (SEP-2663), readable, answerable and cancellable from every instance. */
  readonly tasks: { store: RedisTaskStore };

  constructor(connections: McpRedisConnections) {
    this.eventBus = new RedisEventBus(connections);
    this.requestStateStore = new RedisRequestStateStore(connections);
    this.replyRouter = new RedisReplyRouter(connections);
    this.tasks = { store: new RedisTaskStore(connections) };
  }

  /** True while every part that listens on Redis does (for readiness checks). */
  get listening(): boolean {
    return this.eventBus.listening && this.replyRouter.listening && this.tasks.store.listening;
  }

  /** Stops what listens on Redis; the connections close with `McpRedisConnections.close`. */
  async close(): Promise<void> {
    this.eventBus.close();
    this.tasks.store.close();
    await this.replyRouter.close();
  }
}
