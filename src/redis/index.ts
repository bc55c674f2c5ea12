// `nestjs-mcp/redis`: the shared parts of an MCP server in Redis, for several instances behind a load balancer.
// The only entry point that loads a Redis client (ioredis, an optional peer dependency). The module, its options
// and the backends it builds, with the connections they share (to build a backend of your own channel, or to
// ping Redis from a readiness check); how they talk to Redis stays inside.
export { McpRedisModule } from './mcp-redis.module.js';
export { McpRedisBackends } from './mcp-redis-backends.js';
export { McpRedisConnections } from './backends/redis-connections.js';
export { RedisEventBus } from './backends/redis-event-bus.js';
export { RedisEventStore } from './backends/redis-event-store.js';
export { RedisRequestStateStore } from './backends/redis-request-state-store.js';
export { RedisReplyRouter } from './backends/redis-reply-router.js';
export { RedisSessionStore } from './backends/redis-session-store.js';
export { RedisTaskStore } from './backends/tasks/redis-task-store.js';
export type { McpRedisOptions } from './backends/redis-options.js';
