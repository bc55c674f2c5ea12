import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { McpRedisBackends, McpRedisConnections } from '../../src/redis/index.js';

/**
 * A `@nestjs/terminus` indicator for the Redis behind `nestjs-mcp/redis`: up when a PING round-trips (bounded by
 * the module's `commandTimeoutMs`) and every shared part listens on its channel. Meant as its own check beside
 * the MCP one: the MCP server keeps serving what needs no Redis while this one is down (docs/deployment.md).
 */
@Injectable()
export class McpRedisHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly connections: McpRedisConnections,
    private readonly backends: McpRedisBackends,
  ) {}

  async isHealthy(key = 'redis') {
    const indicator = this.health.check(key);
    try {
      await this.connections.ping();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
    if (!this.backends.listening) return indicator.down({ message: 'not subscribed to every channel yet' });
    return indicator.up();
  }
}
