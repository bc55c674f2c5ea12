// `nestjs-mcp/redis`: the shared parts of an MCP server in Redis, for several instances behind a load balancer.
// The only entry point that loads a Redis client (ioredis, an optional peer dependency).
export { McpRedisModule } from './mcp-redis.module.js';
export { MCP_REDIS_OPTIONS } from './mcp-redis.module-definition.js';
export { McpRedisBackends } from './mcp-redis-backends.js';
export { McpRedisConnections, type McpRedisClient } from './backends/redis-connections.js';
export { RedisChannel } from './backends/redis-channel.js';
export { RedisEventBus } from './backends/redis-event-bus.js';
export { RedisRequestStateStore } from './backends/redis-request-state-store.js';
export { RedisReplyRouter } from './backends/redis-reply-router.js';
export { RedisSessionStore } from './backends/redis-session-store.js';
export { RedisTaskStore } from './backends/redis-task-store.js';
export { McpRedisUnavailableError } from './backends/redis-unavailable-error.js';
export type { McpRedisOptions } from './backends/redis-options.js';
export type { McpRedisModuleExtras } from './mcp-redis-options.interface.js';
