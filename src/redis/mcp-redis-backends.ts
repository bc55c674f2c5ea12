import type { McpRedisConnections } from './backends/redis-connections.js';
import { RedisEventBus } from './backends/redis-event-bus.js';
import { RedisEventStore } from './backends/redis-event-store.js';
import { RedisReplyRouter } from './backends/redis-reply-router.js';
import { RedisRequestStateStore } from './backends/redis-request-state-store.js';
import { RedisSessionStore } from './backends/redis-session-store.js';
import { RedisTaskStore } from './backends/tasks/redis-task-store.js';

/**
 * Every shared part of an MCP server, backed by Redis, in the option groups `McpModule` takes them in, so the
 * whole set spreads into its options (`tasks: { ...redis.tasks, ttlMs }` to set other options of a group as well):
 *
 * ```ts
 * McpModule.forRootAsync({ inject: [McpRedisBackends], useFactory: (redis: McpRedisBackends) => ({ name, version, ...redis }) })
 * ```
 */
export class McpRedisBackends {
  /**
   * List-changed, resource-updated and task-status events for listen streams on every instance; and event
   * occurrences (SEP-3415), so a cursor any instance issued is served by every other.
   */
  readonly listen: { eventBus: RedisEventBus; eventStore: RedisEventStore };
  /** Consumed single-use request states, refused on every instance. */
  readonly requestState: { store: RedisRequestStateStore };
  /**
   * Replies of 2025-era clients, routed to the instance where the call waits; and their sessions, for
   * `legacy: { ...redis.legacy, mode: 'stateful' }`, served by every instance.
   */
  readonly legacy: { replyRouter: RedisReplyRouter; sessions: { store: RedisSessionStore } };
  /** Tasks (SEP-2663), readable, answerable and cancellable from every instance. */
  readonly tasks: { store: RedisTaskStore };

  constructor(connections: McpRedisConnections) {
    this.listen = { eventBus: new RedisEventBus(connections), eventStore: new RedisEventStore(connections) };
    this.requestState = { store: new RedisRequestStateStore(connections) };
    this.legacy = {
      replyRouter: new RedisReplyRouter(connections),
      sessions: { store: new RedisSessionStore(connections) },
    };
    this.tasks = { store: new RedisTaskStore(connections) };
  }

  /** True while every part that listens on Redis does (for readiness checks). */
  get listening(): boolean {
    return (
      this.listen.eventBus.listening &&
      this.legacy.replyRouter.listening &&
      this.legacy.sessions.store.listening &&
      this.tasks.store.listening
    );
  }

  /** Stops what listens on Redis; the connections close with `McpRedisConnections.close`. */
  async close(): Promise<void> {
    this.listen.eventBus.close();
    this.tasks.store.close();
    await Promise.all([this.legacy.replyRouter.close(), this.legacy.sessions.store.close()]);
  }
}
